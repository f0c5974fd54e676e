import type { Command } from '../command.js';
import { formatDuration, inOrAgo, jsonInstant, paint, printable, sanitizeOutput, table } from '../render.js';
import { stringifySafeJson } from '../../text/sanitize.js';
import type { StatusData } from '../../verbs/status.js';
import type { Deps } from '../../deps.js';
import { machineGateContext } from '../machine-gate.js';
import { durationArg } from '../args.js';

interface GateSummary {
  dir: string;
  slots: number;
  holders: number;
  waiters: number;
}

/** This computer's load gate, as `abcd gate --status` shows it in full. */
async function gateSummary(deps: Deps): Promise<GateSummary> {
  const [{ dir, slots, gateDeps }, { readGate }] = await Promise.all([machineGateContext(deps), import('../../machine/gate.js')]);
  const view = readGate(dir, gateDeps);
  return { dir, slots, holders: view.holders.length, waiters: view.waiters.length };
}

export const status: Command = {
  command: 'status',
  describe: "everyone's claims (holder, age, expiry, stale) and refused records, in one round trip",
  refusals: ['remote-unavailable', 'record-invalid', 'record-too-new', 'unsafe-environment', 'interrupted'],
  usesRemote: true,
  agentUse: 'see who holds what, the land queue and announcements',
  examples: [
    ['abcd status', 'a table of every claim'],
    ['abcd status --json', 'the same as one stable JSON object'],
    ['abcd status --watch 5s', 'redraw every 5 seconds until Ctrl-C (one JSON line per read with --json)'],
  ],
  builder: (y) =>
    y.option('watch', { type: 'string', describe: 'read again at this interval (default 2s) until stopped' }),
  async run(args, deps) {
    const [{ openRepo }, { status: run }] = await Promise.all([import('../../verbs/repo.js'), import('../../verbs/status.js')]);
    const repo = await openRepo(deps);
    const once = async () => {
      const s = await run(repo);
      const gate = await gateSummary(deps);
      return { json: toJson(s, gate), text: toText(s, gate, deps.out.isTTY) };
    };
    if (args.watch === undefined) return once();
    // A display loop, not a wait: it ends when the person stops it (SIGINT/SIGTERM).
    const every = Math.max(MIN_WATCH_MS, durationArg(args.watch === '' ? '2s' : args.watch, '--watch', 2000));
    for (;;) {
      const r = await once();
      if (args.json) deps.out.stdout(stringifySafeJson({ ok: true, ...r.json }) + '\n');
      else deps.out.stdout((deps.out.isTTY ? '\u001b[H\u001b[2J' : '\n') + sanitizeOutput(r.text, deps.out.isTTY) + '\n');
      await deps.clock.sleep(every, deps.signal);
      if (deps.signal?.aborted) return { json: r.json, text: '', printed: true };
    }
  },
};

// Watching faster than this only loads the remote.
const MIN_WATCH_MS = 500;

function toJson(s: StatusData, gateJson: GateSummary): Record<string, unknown> {
  return {
    remote: s.remote,
    readAt: jsonInstant(s.readAt),
    session: s.session,
    claims: s.claims.map(({ tip, ...c }) => ({
      ...c,
      claimTip: tip,
      at: jsonInstant(c.at),
      expiresAt: jsonInstant(c.expiresAt),
      takeableAt: c.takeableAt !== undefined ? jsonInstant(c.takeableAt) : null,
      note: c.note ?? null,
      branch: c.branch ?? null,
      head: c.head ?? null,
      landed: c.landed ?? null,
    })),
    queue: s.queue.map((q) => ({ ...q, since: jsonInstant(q.since) })),
    announcements: s.announcements.map((a) => ({ ...a, at: jsonInstant(a.at), expiresAt: jsonInstant(a.expiresAt) })),
    gate: gateJson,
    settings: s.settings,
    settingsTrust: s.settingsTrust,
    refused: s.refused,
    unknown: s.unknown,
    pruned: s.pruned,
    lanes: s.lanes.map((l) => ({ ...l, startedAt: jsonInstant(l.startedAt), at: jsonInstant(l.at), end: l.end ?? null })),
    pending: s.pending.map((p) => ({ ...p, at: jsonInstant(p.at), note: p.note ?? null })),
    clockSkew: s.clockSkew ?? null,
  };
}

function toText(s: StatusData, gate: GateSummary, tty: boolean): string {
  const out: string[] = [];
  if (s.claims.length === 0) out.push(`no claims on ${s.remote}`);
  else {
    const rows = s.claims.map((c) => [
      c.mine ? paint(tty, 'bold', printable(c.item)) : printable(c.item),
      printable(c.holder),
      c.state,
      formatDuration(c.ageMs),
      c.state === 'held' ? inOrAgo(c.expiresInMs) : '-',
      c.stale ? paint(tty, 'yellow', c.takeableAt ? `stale, takeable ${inOrAgo(c.takeableAt - s.readAt)}` : 'stale') : '',
      printable(c.note ?? ''),
    ]);
    out.push(table(['ITEM', 'HOLDER', 'STATE', 'AGE', 'EXPIRES', 'STALE', 'NOTE'], rows));
  }
  if (s.queue.length) {
    const rows = s.queue.map((q) => [String(q.position), printable(q.item), printable(q.holder), q.head.slice(0, 12), `${formatDuration(s.readAt - q.since)} ago`, q.alive ? '' : 'dead (skipped)']);
    out.push('', `land queue onto ${printable(s.queue[0]!.main)}:`, table(['#', 'ITEM', 'HOLDER', 'HEAD', 'WAITING SINCE', ''], rows));
  }
  if (s.announcements.length) {
    out.push('', 'announcements:', ...s.announcements.map((a) => `  ${printable(a.session)} ${a.state}${a.item ? ` on ${printable(a.item)}` : ''}: ${printable(a.text)} (${formatDuration(s.readAt - a.at)} ago)`));
  }
  const landed = s.claims.filter((c) => c.state === 'done' && c.landed);
  if (landed.length) out.push('', ...landed.map((c) => `landed ${printable(c.item)} on ${printable(c.landed!.main)} at ${c.landed!.tip.slice(0, 12)} (${formatDuration(c.ageMs)} ago)`));
  if (!s.settingsTrust.protected) {
    out.push('', paint(tty, 'yellow', `settings are unprotected: anyone who can push to the remote can change them (list your signing key in ${s.settingsTrust.signers})`));
  }
  out.push(...laneText(s));
  out.push('', `load gate: ${gate.holders} of ${gate.slots} slot(s) held, ${gate.waiters} waiting (${gate.dir})`);
  for (const r of s.refused) out.push(paint(tty, 'red', `refused ${printable(r.ref)}: ${printable(r.message)}`));
  if (s.unknown.length) out.push(`${s.unknown.length} ref(s) under abcd/ of a kind this abcd does not know, left alone: ${s.unknown.slice(0, 5).map(printable).join(', ')}`);
  if (s.pruned) out.push(`pruned ${s.pruned} released or expired record(s)`);
  if (s.clockSkew) {
    const k = s.clockSkew;
    const off = k.minMs > 0 ? `at least ${formatDuration(k.minMs)} ahead of` : `at least ${formatDuration(-k.maxMs)} behind`;
    out.push(paint(tty, 'red', `this computer's clock is ${off} the clock of ${printable(k.writer)}: takeovers and pruning are refused until the clocks agree`));
  }
  return out.join('\n');
}

/** Running lanes, recent lane results and pending requests (hostile text made printable). */
function laneText(s: StatusData): string[] {
  const out: string[] = [];
  for (const l of s.lanes) {
    const items = l.current.map((c) => `${printable(c.item)} for ${formatDuration(c.forMs)}`).join(', ');
    const head = `${l.verb} ${l.runId} by ${printable(l.holder)} (${l.lifecycle}, ${l.lanes} lane(s))`;
    if (l.state === 'running') out.push(`lane running: ${head}${items ? `: ${items}` : ''}; ${l.landed} landed so far`);
    else if (l.state === 'lost') out.push(`lane lost: ${head} stopped rewriting its result ${formatDuration(s.readAt - l.at)} ago`);
    else out.push(`lane result: ${head}, ${formatDuration(s.readAt - l.at)} ago: ${l.landed} landed, ${l.notLanded} not${l.end && l.end !== 'ok' ? `, ended ${l.end}` : ''}`);
  }
  for (const p of s.pending) out.push(`pending ${printable(p.item)}: requested by ${printable(p.requester)} ${formatDuration(s.readAt - p.at)} ago${p.note ? `: ${printable(p.note)}` : ''}`);
  return out.length ? ['', ...out] : [];
}
