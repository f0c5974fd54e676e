// `abcd land <item> --approve <run>`: the person lands a lane run's work that touched protected
// paths (ADR 0103). Exactly the head the run kept (the released claim names it; a branch moved
// since is refused), approved in a signed generation of the person's settings before anything
// else is pushed, then reserved and landed through the queue like any land.
import type { CheckWatch } from '../../land/checks/checks.js';
import { formatItem, shortItem, type ItemKey } from '../../records/item.js';
import { claimRef } from '../../records/refs.js';
import { CONFIG_PATH } from '../../repo/config.js';
import { Conflict, UsageError } from '../../core/refusals.js';
import { land, type GateRunner, type LandResult } from '../../land/land.js';
import type { IntegrationStrategy } from '../../records/queue.js';
import type { Priority } from '../../land/queue/priority.js';
import { reserve } from '../../claims/reserve.js';
import type { Repo } from '../../repo/repo.js';
import { readSnapshot } from '../../repo/snapshot.js';
import { writeApproval } from '../../settings/approval.js';
import { dropKeptBranches } from '../cycle/keep-work.js';
import { unlessRefusal } from '../../core/best-effort.js';

export interface ApproveInput {
  item: ItemKey;
  run: string;
  waitMs: number;
  strategy?: IntegrationStrategy;
  priority?: Priority;
  /** Who watches the land's checks (the person's terminal). */
  checkWatch?: CheckWatch;
}

export interface ApproveResult extends LandResult {
  approved: { run: string; head: string; paths: string[]; generation: string };
}

// Where an approving land keeps the fetched branch in the person's clone, apart from their own branches.
const REVIEW_REFS = 'refs/abcd-review/';

export async function approveRun(repo: Repo, input: ApproveInput, gate: GateRunner): Promise<ApproveResult> {
  const item = shortItem(input.item);
  const ref = claimRef(input.item);
  const snap = await readSnapshot(repo);
  const entry = snap.claims.get(ref);
  const review = entry?.claim.state === 'released' ? entry.claim.review : undefined;
  if (!review || review.run !== input.run) {
    throw new UsageError(
      `no work of run ${input.run} waits for review on ${item}${review ? ` (run ${review.run} does)` : ''}; nothing was landed. ` +
        `abcd review lists what waits, with each run's id.`,
      'review',
      { item: formatItem(input.item), run: input.run, ...(review ? { waiting: review.run } : {}) },
    );
  }
  const head = await fetchKeptHead(repo, review);
  const [tree, config] = await Promise.all([repo.git.objects.treeOf(head), repo.git.objects.idAt(head, CONFIG_PATH)]);
  // Signed first: someone else's approval is refused before any claim, branch or main moves.
  const generation = await writeApproval(repo, snap, {
    item: formatItem(input.item),
    run: review.run,
    head,
    tree,
    ...(config ? { config } : {}),
  });
  await reserve(repo, { item: input.item, waitMs: 0, note: `approve run ${review.run}` });
  // The branch land takes, at exactly the head approved: the kept branch's name, in this clone.
  await repo.git.refs.update(`refs/heads/${review.branch}`, head);
  const landed = await land(
    repo,
    {
      item: input.item,
      branch: review.branch,
      waitMs: input.waitMs,
      // As the lane would have landed it: one commit per item unless land.strategy says otherwise.
      defaultStrategy: 'squash',
      ...(input.strategy ? { strategy: input.strategy } : {}),
      ...(input.priority ? { priority: input.priority } : {}),
      ...(input.checkWatch ? { checkWatch: input.checkWatch } : {}),
      keep: false,
    },
    gate,
  );
  // A refused land leaves the person holding the item with the branch in this clone, to fix and land as their own.
  await dropKeptBranches(repo, input.item);
  await repo.git.refs.delete(`refs/heads/${review.branch}`);
  return { ...landed, approved: { run: review.run, head, paths: review.paths, generation } };
}

/** Fetches the run's kept branch and answers its head, refused when the branch no longer holds what the run kept. */
async function fetchKeptHead(repo: Repo, review: { branch: string; head: string }): Promise<string> {
  const local = `${REVIEW_REFS}${review.branch}`;
  await repo.store.fetch([`+refs/heads/${review.branch}:${local}`]).catch(unlessRefusal(undefined));
  const tip = await repo.git.refs.resolve(`${local}^{commit}`);
  if (tip !== review.head) {
    throw new Conflict(
      `the branch ${review.branch} ${tip ? `is at ${tip.slice(0, 12)}` : 'is gone from the remote'}, not at ${review.head.slice(0, 12)} ` +
        'where the lane kept the work under review; nothing was landed. Only exactly the work reviewed is approved.',
      { ref: `refs/heads/${review.branch}`, ...(tip ? { actual: tip } : {}), expected: review.head },
    );
  }
  return tip;
}
