// What `abcd status` shows, as sections in the order a person needs them: what wants attention
// first (refused records, failed or stuck items, failing lanes, held claims, the queue, running
// lanes, requests), then summaries (landed work, announcements, receipts) and the notes.
// status-fit.ts cuts them to a terminal's rows; every row is one entry, so a cut never splits a
// record from its fix.
import { compareNatural } from '../core/natural-order.js';
import type { ClaimView, QueueView, StatusData } from '../status/status.js';
import { formatDuration, inOrAgo, paint, printable, table } from './render.js';
import { failureSections, runningSections } from './status-lane-sections.js';

export interface GateSummary {
  dir: string;
  slots: number;
  holders: number;
  waiters: number;
}

export interface Section {
  /** The bold title line; a section without one (the notes) is plain lines. */
  title?: string;
  /** Lines shown whenever any row is (a table's column names). */
  head?: string[];
  /** One entry per row; an entry may take several lines (a refused record and its fix). */
  rows: string[][];
  /** Wanted on a small screen before any summary. */
  attention: boolean;
}

export interface SectionOptions {
  colour: boolean;
  /** Every landed item by name, not a count and the latest few. */
  all: boolean;
  /** Also the notes that are not about what the records say (what the read pruned). */
  verbose?: boolean;
  /** Leave the warnings out (--watch shows them once, in its footer). */
  noWarnings?: boolean;
  /** The terminal's width: a warning takes the longest of its forms that fits. */
  width?: number;
}

// A summary of landed work names this many of the newest.
const LANDED_NAMED = 3;

type LaneView = StatusData['lanes'][number];

export function statusSections(s: StatusData, gate: GateSummary, o: SectionOptions): Section[] {
  const c = o.colour;
  const out: Section[] = [];
  out.push(...refusedSections(s, c));
  out.push(...failureSections(s, c));
  const failing = s.lanes.filter((l) => l.state === 'lost' || (l.state === 'finished' && l.end !== undefined && l.end !== 'ok'));
  const head = (l: StatusData['lanes'][number]) => `${l.verb} ${l.runId} by ${printable(l.holder)} (${l.lifecycle}, ${l.lanes} lane(s))`;
  out.push(...failingSections(s, c, failing, head));
  out.push(...claimSections(s, c));
  out.push(...queueSections(s, c));
  out.push(...runningSections(s));
  out.push(...requestSections(s));
  out.push(...landedSections(s, o));
  out.push(...historySections(s, failing, head));
  out.push({ rows: notes(s, gate, o).map((n) => [n]), attention: false });
  return out;
}

/** The records refused on the read, each with its fix, and a clock too far from a writer's. */
function refusedSections(s: StatusData, c: boolean): Section[] {
  const out: Section[] = [];
  if (s.refused.length)
    out.push({
      title: `Refused records (${s.refused.length})`,
      rows: s.refused.map((r) => [
        paint(c, 'red', `refused ${printable(r.ref)}: ${printable(r.message)}`),
        `  fix: ${fixFor(r.ref, s.remote)}`,
      ]),
      attention: true,
    });
  if (s.clockSkew) {
    const k = s.clockSkew;
    const off = k.minMs > 0 ? `at least ${formatDuration(k.minMs)} ahead of` : `at least ${formatDuration(-k.maxMs)} behind`;
    const line = `this computer's clock is ${off} the clock of ${printable(k.writer)}: takeovers and pruning are refused until the clocks agree`;
    out.push({ rows: [[paint(c, 'red', line)]], attention: true });
  }
  return out;
}

/** Lane runs lost or ended other than ok. */
function failingSections(s: StatusData, c: boolean, failing: LaneView[], head: (l: LaneView) => string): Section[] {
  const out: Section[] = [];
  if (failing.length)
    out.push({
      title: `Failing lanes (${failing.length})`,
      rows: failing.map((l) => [
        paint(
          c,
          'yellow',
          l.state === 'lost'
            ? `  lost: ${head(l)}: ${lostWhy(l)}, last seen ${formatDuration(s.readAt - (l.lost?.lastSeenAt ?? l.at))} ago`
            : `  ended ${printable(l.end ?? '')} ${formatDuration(s.readAt - l.at)} ago: ${head(l)}: ${l.landed} landed, ${l.notLanded} not${l.end === 'budget-exhausted' ? '; next: abcd budget' : ''}`,
        ),
      ]),
      attention: true,
    });
  return out;
}

/** The claims held, and the ones waiting for the person's review. */
function claimSections(s: StatusData, c: boolean): Section[] {
  const out: Section[] = [];
  const live = s.claims.filter((x) => x.state === 'held');
  if (live.length) {
    const lines = table(
      ['ITEM', 'HOLDER', 'TAKEN', 'EXPIRES', 'NOTE'],
      live.map((x) => claimRow(x, s.readAt, c)),
    ).split('\n');
    out.push({ title: `Claims (${live.length})`, head: lines.slice(0, 1), rows: lines.slice(1).map((l) => [l]), attention: true });
  } else out.push({ title: 'Claims (0)', rows: [[`  none held on ${printable(s.remote)}`]], attention: true });

  const reviews = s.claims.filter((x) => x.review);
  if (reviews.length)
    out.push({
      title: `Waiting for your review (${reviews.length})`,
      rows: reviews.map((x) => [
        paint(c, 'yellow', `  ${printable(x.item)}: lane run ${printable(x.review!.run)} changes ${printable(x.review!.paths.join(', '))}`),
        `  see it: abcd review ${printable(x.item)}; land it: abcd land ${printable(x.item)} --approve ${printable(x.review!.run)}`,
      ]),
      attention: true,
    });
  return out;
}

/** The land queue, its entry under test first. */
function queueSections(s: StatusData, c: boolean): Section[] {
  const out: Section[] = [];
  if (s.queue.length) {
    // The first live entry is the one being tested and landed now.
    const first = s.queue.find((q) => q.alive);
    const rows = s.queue.map((q) => [
      q === first ? paint(c, 'green', '>') : String(q.position),
      q.priority ? `${printable(q.item)} (${q.priority})` : printable(q.item),
      printable(q.holder),
      q.head.slice(0, 12),
      `${formatDuration(s.readAt - q.since)} ago`,
      queueState(q, q === first, c),
    ]);
    const lines = table(['#', 'ITEM', 'HOLDER', 'HEAD', 'QUEUED', ''], rows).split('\n');
    out.push({
      title: `Land queue onto ${printable(s.queue[0]!.main)}`,
      head: lines.slice(0, 1),
      rows: lines.slice(1).map((l) => [l]),
      attention: true,
    });
  }
  return out;
}

/** Requests for work and steers not yet taken. */
function requestSections(s: StatusData): Section[] {
  const out: Section[] = [];
  if (s.pending.length)
    out.push({
      title: 'Pending requests',
      rows: s.pending.map((p) => [
        `  ${printable(p.item)}: requested by ${printable(p.requester)}${proof(s, p.provenBy)} ${formatDuration(s.readAt - p.at)} ago${p.note ? `: ${printable(p.note)}` : ''}`,
      ]),
      attention: true,
    });
  if (s.steers.length)
    out.push({
      title: 'Steer requests',
      rows: s.steers.map((x) => {
        const who = x.heldBy ? `the lane of ${printable(x.heldBy)} gets it next poll` : 'waiting for the next build or drain';
        return [
          `  ${printable(x.item)} ${printable(x.id)} by ${printable(x.author)}${proof(s, x.provenBy)} ${formatDuration(s.readAt - x.at)} ago (${who}): ${printable(x.text)}`,
        ];
      }),
      attention: true,
    });
  return out;
}

/** What happened: announcements, lane runs finished, receipts. */
function historySections(s: StatusData, failing: LaneView[], head: (l: LaneView) => string): Section[] {
  const out: Section[] = [];
  if (s.announcements.length)
    out.push({
      title: `Announcements (${s.announcements.length})`,
      rows: s.announcements.map((a) => [
        `  ${printable(a.session)} ${a.state}${a.item ? ` on ${printable(a.item)}` : ''}: ${printable(a.text)} (${formatDuration(s.readAt - a.at)} ago)`,
      ]),
      attention: false,
    });
  const finished = s.lanes.filter((l) => !failing.includes(l) && l.state === 'finished');
  if (finished.length)
    out.push({
      title: `Finished lanes (${finished.length})`,
      rows: finished.map((l) => [`  ${formatDuration(s.readAt - l.at)} ago: ${head(l)}: ${l.landed} landed, ${l.notLanded} not`]),
      attention: false,
    });
  if (s.receipts.length)
    out.push({
      title: 'Receipts',
      rows: s.receipts.map((r) => [
        `  ${printable(r.item)}: run ${printable(r.runId)} absorbed ${r.consumed.map(printable).join(', ')}; settled on ${r.head.slice(0, 12)} (${formatDuration(s.readAt - r.at)} ago)`,
      ]),
      attention: false,
    });
  return out;
}

/**
 * " (signed by X)", or " (unverified)" where requests are protected and this one is not proven.
 * Unprotected, every request is unverified: the warning says so once, not on every row.
 */
function proof(s: StatusData, provenBy: string): string {
  if (provenBy !== 'unverified') return ` (signed by ${printable(provenBy)})`;
  return s.requestTrust.protected ? ' (unverified)' : '';
}

function claimRow(x: ClaimView, readAt: number, c: boolean): string[] {
  const expiry = x.stale
    ? paint(
        c,
        'yellow',
        x.takeableAt === undefined
          ? 'expired'
          : x.takeableAt <= readAt
            ? 'takeable now'
            : `expired, takeable ${inOrAgo(x.takeableAt - readAt)}`,
      )
    : `expires ${inOrAgo(x.expiresInMs)}`;
  return [
    x.mine ? paint(c, 'bold', printable(x.item)) : printable(x.item),
    printable(x.holder),
    `${formatDuration(x.ageMs)} ago`,
    expiry,
    printable(x.note ?? ''),
  ];
}

/** Landed work: one line (how many, the newest named) unless every item is asked for. */
function landedSections(s: StatusData, o: SectionOptions): Section[] {
  const done = s.claims.filter((x) => x.state === 'done');
  if (!done.length) return [];
  const kept = `in the last ${formatDuration(s.settings.doneRetention)}`;
  if (o.all) {
    // By name, in the order people count: item-2 before item-10.
    const byName = [...done].sort((a, b) => compareNatural(a.item, b.item));
    return [
      {
        title: `Landed (${done.length} ${kept})`,
        rows: byName.map((x) => [
          x.landed
            ? `  ${printable(x.item)} on ${printable(x.landed.main)} at ${x.landed.tip.slice(0, 12)} (${formatDuration(s.readAt - x.at)} ago)${flakyNote(x.landed)}`
            : `  ${printable(x.item)} (done ${formatDuration(s.readAt - x.at)} ago)`,
        ]),
        attention: false,
      },
    ];
  }
  const newest = [...done].sort((a, b) => b.at - a.at || compareNatural(a.item, b.item)).slice(0, LANDED_NAMED);
  const named = newest.map((x) => `${printable(x.item)} (${formatDuration(s.readAt - x.at)} ago)`).join(', ');
  const flaky = done.filter((x) => x.landed?.flaky?.length).length;
  const retried = flaky ? `; ${flaky} passed its checks only on a retry (abcd status --all names them)` : '';
  const line = `landed: ${done.length} ${kept}, latest ${newest.length === 1 ? '' : `${newest.length}`}: ${named}${done.length > newest.length ? '; abcd status --all lists every one' : ''}${retried}`;
  return [{ rows: [[line]], attention: false }];
}

/** ", passed only on a retry: <check> (attempt 2)" for a landing whose checks were flaky. */
function flakyNote(landed: { flaky?: { check: string; attempts: number }[] }): string {
  if (!landed.flaky?.length) return '';
  return `, passed only on a retry: ${landed.flaky.map((f) => `"${printable(f.check)}" (attempt ${f.attempts})`).join(', ')}`;
}

/** Why a lane run counts as lost: its process seen gone here, or its record no longer rewritten. */
function lostWhy(l: StatusData['lanes'][number]): string {
  return l.lost?.why === 'process-gone' ? 'its process on this computer is gone' : 'it stopped rewriting its result';
}

function notes(s: StatusData, gate: GateSummary, o: SectionOptions): string[] {
  const out: string[] = o.noWarnings ? [] : statusWarnings(s, o.width).map((w) => paint(o.colour, 'yellow', w));
  out.push(`load gate: ${gate.holders} of ${gate.slots} slot(s) held, ${gate.waiters} waiting (${gate.dir})`);
  if (s.pruned && o.verbose) out.push(`pruned ${s.pruned} released or expired record(s)`);
  if (s.unknown.length)
    out.push(
      `${s.unknown.length} ref(s) under abcd/ of a kind this abcd does not know, left alone: ${s.unknown.slice(0, 5).map(printable).join(', ')}`,
    );
  return out;
}

/**
 * What the person should fix, one line each at `width`: the longest form that fits (the
 * shortest when none does). Settings and requests unprotected together are one warning.
 */
export function statusWarnings(s: StatusData, width?: number): string[] {
  const settings = !s.settingsTrust.protected;
  const requests = !s.requestTrust.protected && (s.pending.length > 0 || s.steers.length > 0);
  if (!settings && !requests) return [];
  const what = settings && requests ? 'settings and requests are' : settings ? 'settings are' : 'requests are';
  const signers = printable(settings ? s.settingsTrust.signers : s.requestTrust.signers);
  const risk = settings ? 'change them' : 'write a request as you';
  const forms = [
    `${what} unprotected: anyone who can push to the remote can ${risk}. To protect them, list your signing key in ${signers}`,
    `${what} unprotected: to protect them, list your signing key in ${signers}`,
    `${what} unprotected: list your signing key in ${signers}`,
    `${what} unprotected: see abcd settings`,
  ];
  return [forms.find((f) => width === undefined || [...f].length <= width) ?? forms.at(-1)!];
}

/** The command that clears a refused record. */
function fixFor(ref: string, remote: string): string {
  const claim = /^refs\/heads\/abcd\/claims\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(ref);
  if (claim)
    return `abcd release ${claim[1] === 'local' && claim[2] === 'item' ? claim[3] : `${claim[1]}:${claim[2]}:${claim[3]}`} --force (the person's call)`;
  if (ref === 'refs/heads/abcd/settings') return 'the person writes a signed generation: abcd settings <key> <value>';
  return `git push ${remote} --delete ${printable(ref)} (after checking nothing live uses it)`;
}

/** What an entry of the land queue is doing, in a word or three. */
function queueState(q: QueueView, first: boolean, c: boolean): string {
  if (q.refused) return paint(c, 'yellow', `refused in ${printable(q.refused.by)}'s batch: ${printable(q.refused.reason)}`);
  if (!q.alive) return paint(c, 'yellow', 'dead (skipped)');
  if (q.batch && !q.batch.head) return `in ${printable(q.batch.of)}'s batch`;
  const what = first ? 'under test' : 'waiting';
  return q.batch ? `${what}, heads a batch` : what;
}
