// `abcd steer <item> <text>`: one steer request record for the lane working on the item. It
// never touches the lane or its claim: the lane's watcher finds it on its next poll, and
// with no lane in flight the next build or drain of the item delivers it at the start.
import { randomBytes } from '../core/builtins.js';
import { formatHolder, type Holder } from '../records/holder.js';
import { authorityOf } from './requesters.js';
import { hasSigningKey, writeSettingsCommit } from '../settings/commit.js';
import { provenSigner } from '../repo/settings-trust/request-signers.js';
import { repositoryRoot } from '../repo/settings-trust/repository.js';
import { allowedSignersPath } from '../repo/settings-trust/signers.js';
import { formatItem, shortItem, type ItemKey } from '../records/item.js';
import { steerRef } from '../records/refs.js';
import { encodeSteer, MAX_STEER_CHARS, type SteerRecord } from '../records/steer.js';
import { RemoteUnavailable, UsageError } from '../core/refusals.js';
import { writeRecordCommit } from '../records/objects.js';
import type { Repo } from '../repo/repo.js';
import { readSnapshot, type Snapshot } from '../repo/snapshot.js';
import { itemPath, parseItemFile } from '../items/item-file.js';
import { resolveMain } from '../claims/main-branch.js';

// An undelivered request stands this long; then pruning may remove it (as the pending slot).
export const STEER_TTL_MS = 86_400_000;

export interface SteerResult {
  item: string;
  id: string;
  ref: string;
  tip: string;
  author: string;
  at: number;
  /** Who holds the item now, if anyone. */
  heldBy?: string;
  /** Whether that holder is a lane running on the item (it gets the request on its next poll). */
  laneHolds: boolean;
  /** Whether the item is done and not reopened: the request waits until someone reopens it. */
  done: boolean;
  /** How that lane will take it: an instruction, or information it must not obey. */
  as?: 'amendment' | 'context';
  /** Whether the request commit is signed, and the principal the person's list proves (absent: unverified). */
  signed: boolean;
  provenBy?: string;
  /** Whether this clone keeps the person's allowed-signers list (without one, requests are unprotected). */
  protected: boolean;
}

export async function steer(repo: Repo, input: { item: ItemKey; text: string }): Promise<SteerResult> {
  const text = steerText(input.text);
  const main = await resolveMain(repo);
  const snap = await readSnapshot(repo, [main.fetchSpec]);
  const mainTip = await main.tip();
  await requireItemOnMain(repo, mainTip, input.item);
  const done = await isDoneOnMain(repo, mainTip, input.item, snap);
  const now = repo.deps.clock.now();
  const id = newSteerId(now);
  const ref = steerRef(input.item, id);
  const repository = await repositoryRoot(repo);
  const rec: SteerRecord = {
    abcd: 'steer',
    v: 1,
    id,
    item: formatItem(input.item),
    ...(repository ? { repository } : {}),
    author: repo.me,
    at: now,
    ttl: STEER_TTL_MS,
    text,
  };
  // Signed when git can: a signature by a listed key is what makes the request an amendment.
  const sign = await hasSigningKey(repo.git);
  const commit = { content: encodeSteer(rec), parent: null, message: `steer ${shortItem(input.item)}`, author: repo.author, atMs: now };
  const signers = allowedSignersPath(repo.deps.config.configDir);
  const oid = sign
    ? await writeSettingsCommit({ git: repo.git, ...commit, sign, signers, what: 'the steer request' })
    : await writeRecordCommit({ git: repo.git, ...commit });
  const proof = await provenSigner(repo, oid);
  const r = await repo.store.push([{ ref, newOid: oid, lease: null }], { atomic: true });
  if (!r.ok)
    throw new RemoteUnavailable(`the remote refused the steer request ${ref}; nothing was recorded. Try again.`, {
      outcome: 'unchanged',
      ref,
    });
  const claim = [...snap.claims.values()].find((c) => c.claim.item === rec.item && c.claim.state === 'held');
  const judged = (lane: Holder) =>
    authorityOf(proof, repo.me, { lane, requesters: snap.settings.requesters }) ? ('amendment' as const) : ('context' as const);
  const held = claim ? { heldBy: formatHolder(claim.claim.holder), as: judged(claim.claim.holder) } : {};
  const short = shortItem(input.item);
  // A claim taken by `abcd reserve` polls nothing: only a running lane's record lists the item.
  const laneHolds =
    Boolean(claim) && [...snap.lanes.values()].some((l) => l.result.state === 'running' && l.result.current.some((c) => c.item === short));
  return {
    item: shortItem(input.item),
    id,
    ref,
    tip: oid,
    author: formatHolder(repo.me),
    at: now,
    ...held,
    laneHolds,
    done,
    signed: sign,
    protected: proof.protected,
    ...(proof.principal ? { provenBy: proof.principal } : {}),
  };
}

/** The request's text without its trailing blanks; an empty or too long one is refused. */
function steerText(given: string): string {
  const text = given.replace(/\s+$/, '');
  if (text.trim() === '') throw new UsageError('the steer text is empty: say what the lane should change.', 'argument');
  if (text.length > MAX_STEER_CHARS) {
    throw new UsageError(
      `the steer text is ${text.length} characters, over ${MAX_STEER_CHARS}; shorten it or point to a file in the repository.`,
      'text',
      { chars: text.length },
    );
  }
  return text;
}

/** A local item must be on main: a steer for a typo would wait for a lane that never comes. */
async function requireItemOnMain(repo: Repo, mainTip: string, item: ItemKey): Promise<void> {
  if (item.source !== 'local') return;
  const path = `.abcd/items/${item.id}.md`;
  if (await repo.git.objects.exists(`${mainTip}:${path}`)) return;
  throw new UsageError(
    `there is no item ${shortItem(item)} on main (${mainTip.slice(0, 12)}): no ${path}; nothing was recorded. Run abcd items to see the items.`,
    'no-item',
    {
      item: formatItem(item),
    },
  );
}

/**
 * Whether the item is done on main and nobody holds it: no lane takes it for a steer until
 * someone reopens it. A held one (a reopen, or a session's reservation) is said as before.
 */
async function isDoneOnMain(repo: Repo, mainTip: string, item: ItemKey, snap: Snapshot): Promise<boolean> {
  if (item.source !== 'local') return false;
  const key = formatItem(item);
  if ([...snap.claims.values()].some((c) => c.claim.item === key && c.claim.state === 'held')) return false;
  const path = itemPath(item.id);
  const text = (await repo.git.objects.readBlobAt(mainTip, path))?.toString() ?? '';
  return parseItemFile(path, item, text).status === 'done';
}

function newSteerId(now: number): string {
  const t = new Date(now)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${t}-${randomBytes(4).toString('hex')}`;
}
