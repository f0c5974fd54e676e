// What `abcd serve` shows, read in one round trip: the records and main in one fetch, then the
// status view (src/status/status.ts), the items joined with it, and the lane results' cycles
// for the timeline and the spend of the last day. Pure functions of what was read, so the page
// can take another domain's view (a failure list, a transcript) by swapping one function.
import { resolveMain } from '../claims/main-branch.js';
import { formatHolder } from '../records/holder.js';
import type { CycleRecord, LaneResultRecord } from '../records/lane-result.js';
import { readRepoConfig } from '../repo/config.js';
import { readClock } from '../repo/clock-view.js';
import type { Repo } from '../repo/repo.js';
import { readSnapshot, type Snapshot } from '../repo/snapshot.js';
import { openItemSources } from '../items/sources.js';
import { pendingKeys, viewItems, type ItemView } from '../items/items.js';
import { processGoneIn } from '../machine/gate/process.js';
import { runStanding } from '../status/lane-views.js';
import { status, type StatusData } from '../status/status.js';

/** The window the timeline and the spend cover. */
export const FLEET_WINDOW_MS = 86_400_000;
// Rows the timeline draws: the newest runs (a drain of many lanes is one row).
const MAX_TIMELINE_RUNS = 20;

export interface RunRow {
  runId: string;
  verb: 'build' | 'drain';
  holder: string;
  runtime: string;
  state: 'running' | 'finished' | 'lost';
  startedAt: number;
  /** The record's last write: the end of a finished run. */
  at: number;
  end?: string;
  cycles: CycleRecord[];
}

export interface SpendRow {
  key: string;
  tokens: number;
  costUsd: number;
  cycles: number;
}

/** One item's state as the page groups them; failing: its newest cycle of the window did not land. */
export type ItemState = 'failing' | 'needs-review' | 'claimed' | 'ready' | 'blocked' | 'done';

export interface ItemRow {
  item: ItemView;
  state: ItemState;
  /** The newest cycle of the window that did not land, for a failing or needs-review item. */
  failure?: { runId: string; cycle: CycleRecord };
}

export interface Fleet {
  readAt: number;
  status: StatusData;
  items: ItemRow[];
  itemsRefused: number;
  runs: RunRow[];
  spend: { byItem: SpendRow[]; byRuntime: SpendRow[] };
}

/** Reads the remote once and builds the page's view of it. */
export async function readFleet(repo: Repo): Promise<Fleet> {
  const main = await resolveMain(repo);
  const snap = await readSnapshot(repo, [main.fetchSpec]);
  const s = await status(repo, snap);
  const mainTip = await main.tipIn(snap);
  const listing = await openItemSources(repo, await readRepoConfig(repo.git, mainTip)).list(mainTip);
  const items = viewItems(listing, snap, pendingKeys(snap), await readClock(repo));
  const runs = runRows(snap, s.readAt);
  return {
    readAt: s.readAt,
    status: s,
    items: itemRows(items.items, runs, s.readAt),
    itemsRefused: items.refused.length,
    runs: runs.slice(0, MAX_TIMELINE_RUNS),
    spend: spendOf(runs, s.readAt),
  };
}

/** Runs with a cycle or a write in the window, newest first. */
export function runRows(snap: Snapshot, now: number): RunRow[] {
  return [...snap.lanes.values()]
    .map(({ result: r }) => rowOf(r, now))
    .filter((r) => r.at >= now - FLEET_WINDOW_MS || r.state === 'running')
    .sort((a, b) => b.startedAt - a.startedAt);
}

function rowOf(r: LaneResultRecord, now: number): RunRow {
  return {
    runId: r.runId,
    verb: r.verb,
    holder: formatHolder(r.holder),
    runtime: r.runtime ?? 'unknown',
    state: runStanding(r, now, (p) => processGoneIn(p.space, p)).state,
    startedAt: r.startedAt,
    at: r.at,
    ...(r.end ? { end: r.end } : {}),
    cycles: r.cycles,
  };
}

/** Each item's state: a failure of the window first, then its claim and readiness. */
export function itemRows(items: readonly ItemView[], runs: readonly RunRow[], now: number): ItemRow[] {
  const newest = new Map<string, { runId: string; cycle: CycleRecord }>();
  for (const run of runs)
    for (const c of run.cycles) {
      if (c.startedAt < now - FLEET_WINDOW_MS) continue;
      const had = newest.get(c.item);
      if (!had || had.cycle.startedAt <= c.startedAt) newest.set(c.item, { runId: run.runId, cycle: c });
    }
  return items.map((item): ItemRow => {
    const last = newest.get(item.slug);
    const failed = last && item.readiness !== 'done' && !['landed', 'deferred'].includes(last.cycle.outcome) ? last : undefined;
    if (failed) return { item, state: failed.cycle.code === 'needs-review' ? 'needs-review' : 'failing', failure: failed };
    const state: ItemState =
      item.readiness === 'done'
        ? 'done'
        : item.readiness === 'needs-review'
          ? 'needs-review'
          : item.readiness === 'held'
            ? 'claimed'
            : item.readiness === 'blocked'
              ? 'blocked'
              : 'ready';
    return { item, state };
  });
}

/** Tokens and dollars of the window's cycles, by item and by runtime, largest first. */
export function spendOf(runs: readonly RunRow[], now: number): Fleet['spend'] {
  const byItem = new Map<string, SpendRow>();
  const byRuntime = new Map<string, SpendRow>();
  const add = (m: Map<string, SpendRow>, key: string, c: CycleRecord) => {
    const row = m.get(key) ?? { key, tokens: 0, costUsd: 0, cycles: 0 };
    row.tokens += c.usage ?? 0;
    row.costUsd += c.spend?.costUsd ?? 0;
    row.cycles++;
    m.set(key, row);
  };
  for (const run of runs)
    for (const c of run.cycles) {
      if (c.startedAt < now - FLEET_WINDOW_MS) continue;
      add(byItem, c.item, c);
      add(byRuntime, run.runtime, c);
    }
  const order = (m: Map<string, SpendRow>) => [...m.values()].sort((a, b) => b.costUsd - a.costUsd || b.tokens - a.tokens);
  return { byItem: order(byItem), byRuntime: order(byRuntime) };
}
