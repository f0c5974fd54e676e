// `abcd items`: every item with its status, readiness and claim: the records and main in one
// round trip, the files on main in local git processes, and the issues of a GitHub source in
// conditional requests (an unchanged listing costs a 304).
import { resolveMain } from '../claims/main-branch.js';
import { readRepoConfig } from '../repo/config.js';
import { openItemSources } from './sources.js';
import { followUpsOfLanding, liveClaims, readinessOf, reopenedItems, reviewingItems, type PendingSet } from './readiness.js';
import type { ItemListing } from './source.js';
import { expiresAt } from '../records/claim.js';
import { formatHolder } from '../records/holder.js';
import { formatItem, parseItem, shortItem } from '../records/item.js';
import { RECORD_PREFIX } from '../records/refs.js';
import { RemoteUnavailable, UsageError, isRefusal } from '../core/refusals.js';
import type { Repo } from '../repo/repo.js';
import { readClock, type ClockView } from '../repo/clock-view.js';
import { readSnapshot, type Snapshot } from '../repo/snapshot.js';

export interface ItemView {
  /** Canonical key, e.g. local:item:fix-login. */
  key: string;
  slug: string;
  title: string;
  status: 'ready' | 'done';
  dependsOn: string[];
  readiness: 'ready' | 'blocked' | 'held' | 'done' | 'pending' | 'needs-review';
  /** Dependencies not yet done (readiness blocked), else empty. */
  blockedBy: string[];
  /** The item's claim record as it stands, whatever its state; null when there is none. */
  claim: { state: 'held' | 'released' | 'done'; holder: string; expiresAt: number; live: boolean } | null;
  /** With readiness needs-review: the lane run whose work waits, its branch and the protected paths it touched. */
  review?: { run: string; branch: string; head: string; paths: string[] };
  path: string;
  /** When the item entered main or the issue was opened (ms), null when its source does not say. */
  addedAt: number | null;
  /** An issue's labels (GitHub source). */
  labels?: string[];
}

export interface RefusedItemView {
  path: string;
  key: string | null;
  code: string;
  reason: string | null;
  message: string;
}

export interface ItemsData {
  main: string;
  mainTip: string;
  items: ItemView[];
  refused: RefusedItemView[];
}

/**
 * The canonical keys with a pending request. Reads the snapshot's pending slots when this abcd
 * knows them (lanes), else the refs under abcd/pending/; fails toward "no request".
 */
export function pendingKeys(snap: Snapshot): Set<string> {
  const out = new Set<string>();
  const known = (snap as Snapshot & { pending?: ReadonlyMap<string, { item: string }> }).pending;
  const items = known
    ? [...known.values()].map((e) => e.item)
    : snap.unknown
        .filter((r) => r.startsWith(`${RECORD_PREFIX}pending/`))
        .map((r) => r.slice(`${RECORD_PREFIX}pending/`.length).split('/').join(':'));
  for (const i of items) {
    try {
      out.add(formatItem(parseItem(i)));
    } catch (e) {
      if (!isRefusal(e)) throw e;
    }
  }
  return out;
}

export async function listItems(repo: Repo, o: { pending?: (snap: Snapshot) => PendingSet } = {}): Promise<ItemsData> {
  const main = await resolveMain(repo);
  let snap: Snapshot;
  try {
    snap = await readSnapshot(repo, [main.fetchSpec]);
  } catch (e) {
    if (e instanceof RemoteUnavailable && /couldn't find remote ref/i.test(String(e.data.git))) {
      throw new UsageError(
        `the remote has no branch ${main.main}, so it has no items. Push main first, or run git remote set-head ${repo.store.remote} --auto.`,
        'no-main',
        {
          main: main.main,
        },
      );
    }
    throw e;
  }
  const mainTip = await main.tip();
  const listing = await openItemSources(repo, await readRepoConfig(repo.git, mainTip)).list(mainTip);
  return { main: main.main, ...viewItems(listing, snap, (o.pending ?? pendingKeys)(snap), await readClock(repo)) };
}

/** Pure: the listing joined with the records read at `snap.readAt`, on the clock as measured. */
export function viewItems(listing: ItemListing, snap: Snapshot, pending: PendingSet, clock: ClockView): Omit<ItemsData, 'main'> {
  const live = liveClaims(snap.claims.values(), snap.readAt, clock);
  const claimByKey = new Map([...snap.claims.values()].map((e) => [e.claim.item, e.claim] as const));
  const byKey = new Map(listing.items.map((i) => [formatItem(i.key), i] as const));
  const reopened = reopenedItems(snap.claims.values());
  const reviewing = reviewingItems(snap.claims.values());
  for (const k of followUpsOfLanding(snap.claims.values(), snap.pending.values(), pending)) reopened.add(k);
  const items = listing.items.map((i): ItemView => {
    const key = formatItem(i.key);
    const r = readinessOf(i, byKey, live, pending, reopened, reviewing);
    const c = claimByKey.get(key);
    return {
      key,
      slug: shortItem(i.key),
      title: i.title,
      status: i.status,
      dependsOn: i.dependsOn,
      readiness: r.kind,
      blockedBy: r.kind === 'blocked' ? r.by : [],
      claim: c ? { state: c.state, holder: formatHolder(c.holder), expiresAt: expiresAt(c), live: live.has(key) } : null,
      path: i.path,
      addedAt: i.addedAt ?? null,
      ...(i.labels ? { labels: i.labels } : {}),
      ...(r.kind === 'needs-review' && c?.review
        ? { review: { run: c.review.run, branch: c.review.branch, head: c.review.head, paths: c.review.paths } }
        : {}),
    };
  });
  const refused = listing.refused.map((r) => ({
    path: r.path,
    key: r.key ? formatItem(r.key) : null,
    code: r.refusal.code,
    reason: typeof r.refusal.data.reason === 'string' ? r.refusal.data.reason : null,
    message: r.refusal.message,
  }));
  return { mainTip: listing.mainTip, items, refused };
}
