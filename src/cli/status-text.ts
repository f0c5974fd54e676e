// `abcd status` for people: grouped sections (claims, land queue, lanes, pending requests,
// announcements, refused records last with the command that fixes them), relative times, a
// coloured header, and on a terminal columns cut to its width (`fitTo`), never wrapped.
import type { StatusData } from '../status/status.js';
import { formatDuration, inOrAgo, paint, printable, table } from './render.js';

export interface GateSummary {
  dir: string;
  slots: number;
  holders: number;
  waiters: number;
}

export interface TextStyle {
  /** Colour (a terminal, and NO_COLOR unset). */
  colour: boolean;
  /** Cuts a line to the terminal's width; undefined on a pipe, where nothing is cut. */
  fit?: (line: string) => string;
}

/** The header line: which remote, as whom, and (unless watching, where the footer says it) when. */
export function statusHeader(s: StatusData, style: TextStyle, withTime = true): string {
  const time = withTime ? `, read ${readTime(s.readAt)}` : '';
  return paint(style.colour, ['bold', 'cyan'], `abcd status: ${printable(s.remote)}${time} as ${printable(s.session)}`);
}

export function readTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)}Z`;
}

/** Everything below the header. Stable between reads when nothing changed but the clock. */
export function statusBody(s: StatusData, gate: GateSummary, style: TextStyle): string {
  const c = style.colour;
  const fit = style.fit ?? ((line: string) => line);
  const section = (title: string, lines: string[]) => (lines.length ? ['', paint(c, 'bold', title), ...lines.map(fit)] : []);
  const out: string[] = [];

  const live = s.claims.filter((x) => x.state === 'held');
  const claimRows = live.map((x) => [
    x.mine ? paint(c, 'bold', printable(x.item)) : printable(x.item),
    printable(x.holder),
    `${formatDuration(x.ageMs)} ago`,
    x.stale
      ? paint(
          c,
          'yellow',
          x.takeableAt === undefined
            ? 'expired'
            : x.takeableAt <= s.readAt
              ? 'takeable now'
              : `expired, takeable ${inOrAgo(x.takeableAt - s.readAt)}`,
        )
      : `expires ${inOrAgo(x.expiresInMs)}`,
    printable(x.note ?? ''),
  ]);
  out.push(
    ...section(
      `Claims (${live.length})`,
      live.length
        ? table(['ITEM', 'HOLDER', 'TAKEN', 'EXPIRES', 'NOTE'], claimRows).split('\n')
        : [`  none held on ${printable(s.remote)}`],
    ),
  );

  if (s.queue.length) {
    // The first live entry is the one being tested and landed now.
    const first = s.queue.find((q) => q.alive);
    const rows = s.queue.map((q) => [
      q === first ? paint(c, 'green', '>') : String(q.position),
      printable(q.item),
      printable(q.holder),
      q.head.slice(0, 12),
      `${formatDuration(s.readAt - q.since)} ago`,
      q === first ? 'under test' : q.alive ? 'waiting' : paint(c, 'yellow', 'dead (skipped)'),
    ]);
    out.push(
      ...section(`Land queue onto ${printable(s.queue[0]!.main)}`, table(['#', 'ITEM', 'HOLDER', 'HEAD', 'QUEUED', ''], rows).split('\n')),
    );
  }

  out.push(
    ...section(
      'Lanes',
      s.lanes.map((l) => {
        const items = l.current.map((x) => `${printable(x.item)} for ${formatDuration(x.forMs)}`).join(', ');
        const head = `${l.verb} ${l.runId} by ${printable(l.holder)} (${l.lifecycle}, ${l.lanes} lane(s))`;
        if (l.state === 'running') return `  running: ${head}${items ? `: ${items}` : ''}; ${l.landed} landed so far`;
        if (l.state === 'lost') {
          const seen = `last seen ${formatDuration(s.readAt - (l.lost?.lastSeenAt ?? l.at))} ago`;
          const why = l.lost?.why === 'process-gone' ? 'its process on this computer is gone' : 'it stopped rewriting its result';
          return paint(c, 'yellow', `  lost: ${head}: ${why}, ${seen}`);
        }
        return `  finished ${formatDuration(s.readAt - l.at)} ago: ${head}: ${l.landed} landed, ${l.notLanded} not${l.end && l.end !== 'ok' ? `, ended ${printable(l.end)}` : ''}`;
      }),
    ),
  );
  out.push(
    ...section(
      'Pending requests',
      s.pending.map(
        (p) =>
          `  ${printable(p.item)}: requested by ${printable(p.requester)} (${p.provenBy === 'unverified' ? 'unverified' : `signed by ${printable(p.provenBy)}`}) ${formatDuration(s.readAt - p.at)} ago${p.note ? `: ${printable(p.note)}` : ''}`,
      ),
    ),
  );
  out.push(
    ...section(
      'Steer requests',
      s.steers.map((x) => {
        const who = x.heldBy ? `the lane of ${printable(x.heldBy)} gets it next poll` : 'waiting for the next build or drain';
        return `  ${printable(x.item)} ${printable(x.id)} by ${printable(x.author)} (${x.provenBy === 'unverified' ? 'unverified' : `signed by ${printable(x.provenBy)}`}) ${formatDuration(s.readAt - x.at)} ago (${who}): ${printable(x.text)}`;
      }),
    ),
  );
  out.push(
    ...section(
      'Receipts',
      s.receipts.map(
        (r) =>
          `  ${printable(r.item)}: run ${printable(r.runId)} absorbed ${r.consumed.map(printable).join(', ')}; settled on ${r.head.slice(0, 12)} (${formatDuration(s.readAt - r.at)} ago)`,
      ),
    ),
  );
  out.push(
    ...section(
      'Announcements',
      s.announcements.map(
        (a) =>
          `  ${printable(a.session)} ${a.state}${a.item ? ` on ${printable(a.item)}` : ''}: ${printable(a.text)} (${formatDuration(s.readAt - a.at)} ago)`,
      ),
    ),
  );

  const landed = s.claims.filter((x) => x.state === 'done' && x.landed);
  out.push(
    ...section(
      'Landed',
      landed.map(
        (x) =>
          `  ${printable(x.item)} on ${printable(x.landed!.main)} at ${x.landed!.tip.slice(0, 12)} (${formatDuration(s.readAt - x.takenAt)} ago)`,
      ),
    ),
  );

  const notes: string[] = [];
  if (!s.settingsTrust.protected) {
    notes.push(
      paint(
        c,
        'yellow',
        `settings are unprotected: anyone who can push to the remote can change them (list your signing key in ${s.settingsTrust.signers})`,
      ),
    );
  }
  if (!s.requestTrust.protected && (s.pending.length || s.steers.length)) {
    notes.push(
      paint(
        c,
        'yellow',
        `requests are unprotected: a steer or build request's author is only stated, so anyone who can push can write one as you (list your signing key in ${s.requestTrust.signers})`,
      ),
    );
  }
  if (s.clockSkew) {
    const k = s.clockSkew;
    const off = k.minMs > 0 ? `at least ${formatDuration(k.minMs)} ahead of` : `at least ${formatDuration(-k.maxMs)} behind`;
    notes.push(
      paint(
        c,
        'red',
        `this computer's clock is ${off} the clock of ${printable(k.writer)}: takeovers and pruning are refused until the clocks agree`,
      ),
    );
  }
  notes.push(`load gate: ${gate.holders} of ${gate.slots} slot(s) held, ${gate.waiters} waiting (${gate.dir})`);
  if (s.pruned) notes.push(`pruned ${s.pruned} released or expired record(s)`);
  if (s.unknown.length)
    notes.push(
      `${s.unknown.length} ref(s) under abcd/ of a kind this abcd does not know, left alone: ${s.unknown.slice(0, 5).map(printable).join(', ')}`,
    );
  out.push('', ...notes.map(fit));

  // Refused records last, each with the command that clears it.
  out.push(
    ...section(
      `Refused records (${s.refused.length})`,
      s.refused.flatMap((r) => [
        paint(c, 'red', `refused ${printable(r.ref)}: ${printable(r.message)}`),
        `  fix: ${fixFor(r.ref, s.remote)}`,
      ]),
    ),
  );
  return out.join('\n').replace(/^\n/, '');
}

/** The command that clears a refused record. */
function fixFor(ref: string, remote: string): string {
  const claim = /^refs\/heads\/abcd\/claims\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(ref);
  if (claim)
    return `abcd release ${claim[1] === 'local' && claim[2] === 'item' ? claim[3] : `${claim[1]}:${claim[2]}:${claim[3]}`} --force (the person's call)`;
  if (ref === 'refs/heads/abcd/settings') return 'the person writes a signed generation: abcd settings <key> <value>';
  return `git push ${remote} --delete ${printable(ref)} (after checking nothing live uses it)`;
}

/**
 * What the records say, without the clock: --watch redraws when this changes (and refreshes
 * relative times at most once a minute otherwise).
 */
export function statusSignature(s: StatusData, gate: GateSummary): string {
  return JSON.stringify([
    s.claims.map((x) => [x.ref, x.tip, x.state, x.stale]),
    s.queue.map((q) => [q.item, q.head, q.alive]),
    s.announcements.map((a) => [a.ref, a.at]),
    s.lanes.map((l) => [l.runId, l.state, l.at]),
    s.pending.map((p) => [p.item, p.at]),
    s.steers.map((x) => [x.item, x.id]),
    s.receipts.map((r) => [r.item, r.runId, r.at]),
    s.refused.map((r) => [r.ref, r.message]),
    [gate.holders, gate.waiters, s.unknown.length, s.clockSkew?.writer ?? null],
  ]);
}

/** Cuts lines to `width` columns (cli-truncate, loaded only for a terminal: a pipe cuts nothing). */
export async function fitTo(width: number): Promise<(line: string) => string> {
  const { default: cliTruncate } = await import('cli-truncate');
  return (line) => cliTruncate(line, width, { position: 'end' });
}
