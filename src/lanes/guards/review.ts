// `abcd review [<item>]`: the lane work that waits for the person because it changes protected
// paths (ADR 0103), each with the diff of its protected paths first, then the rest. The diff is
// an agent's text: git runs without external diff drivers or text conversion (a hostile
// .gitattributes could name one), and the text is sanitized and bounded.
import { formatItem, parseItem, shortItem, type ItemKey } from '../../records/item.js';
import type { ClaimEntry } from '../../repo/snapshot.js';
import { readSnapshot } from '../../repo/snapshot.js';
import type { Repo } from '../../repo/repo.js';
import { sanitizeText } from '../../core/sanitize.js';
import { protectedPathsOf } from '../../repo/protected-paths.js';
import { unlessRefusal } from '../../core/best-effort.js';

// How much of each part of one review's diff is shown; past it the answer says it was cut.
const MAX_DIFF_CHARS = 256 * 1024;
const REVIEW_REFS = 'refs/abcd-review/';

export interface ReviewView {
  item: string;
  run: string;
  branch: string;
  head: string;
  base: string;
  /** The protected paths the work changes, as the lane recorded them. */
  paths: string[];
  /** The kept branch no longer holds the head under review (moved or deleted): approving it is refused. */
  moved: boolean;
  /** The diff of the protected paths, then of everything else; cut at MAX_DIFF_CHARS each. */
  diff: { protected: string; rest: string; truncated: boolean };
  /** What lands it. */
  approve: string;
}

export async function listReviews(repo: Repo, o: { item?: ItemKey } = {}): Promise<{ reviews: ReviewView[] }> {
  const snap = await readSnapshot(repo);
  const want = o.item ? formatItem(o.item) : undefined;
  const waiting = [...snap.claims.values()].filter(
    (e): e is ClaimEntry & { claim: { review: NonNullable<ClaimEntry['claim']['review']> } } =>
      e.claim.state === 'released' && e.claim.review !== undefined && (!want || e.claim.item === want),
  );
  if (!waiting.length) return { reviews: [] };
  const specs = waiting.map((e) => `+refs/heads/${e.claim.review.branch}:${REVIEW_REFS}${e.claim.review.branch}`);
  // A branch gone from the remote fails the whole fetch: then each is looked at as this clone has it.
  await repo.store.fetch(specs).catch(unlessRefusal(undefined));
  const reviews: ReviewView[] = [];
  for (const e of waiting.sort((a, b) => (a.claim.item < b.claim.item ? -1 : 1)))
    reviews.push(await reviewOf(repo, e.claim.item, e.claim.review));
  return { reviews };
}

async function reviewOf(
  repo: Repo,
  item: string,
  r: { run: string; branch: string; head: string; base: string; paths: string[] },
): Promise<ReviewView> {
  const moved = (await repo.git.refs.resolve(`${REVIEW_REFS}${r.branch}^{commit}`)) !== r.head;
  const has = await repo.git.objects.hasCommit(r.head);
  const slug = shortItem(parseItem(item));
  const base = { item, run: r.run, branch: r.branch, head: r.head, base: r.base, paths: r.paths, moved };
  const approve = `abcd land ${slug} --approve ${r.run}`;
  if (!has) return { ...base, diff: { protected: '', rest: '', truncated: false }, approve };
  const changed = await repo.git.diff.changedPaths(r.base, r.head);
  // The rule as it stands now decides the split; the paths the lane recorded are always among the first.
  const guarded = new Set([...protectedPathsOf(changed), ...r.paths.filter((p) => changed.includes(p))]);
  const rest = changed.filter((p) => !guarded.has(p));
  const [p, q] = await Promise.all([diffOf(repo, r.base, r.head, [...guarded]), diffOf(repo, r.base, r.head, rest)]);
  return { ...base, diff: { protected: p.text, rest: q.text, truncated: p.cut || q.cut }, approve };
}

async function diffOf(repo: Repo, from: string, to: string, paths: readonly string[]): Promise<{ text: string; cut: boolean }> {
  if (!paths.length) return { text: '', cut: false };
  const text = sanitizeText(await repo.git.diff.patch(from, to, paths));
  return text.length > MAX_DIFF_CHARS ? { text: text.slice(0, MAX_DIFF_CHARS), cut: true } : { text, cut: false };
}
