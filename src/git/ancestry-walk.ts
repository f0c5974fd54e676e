// Whether one commit is an ancestor of another, answered from a short walk of parents where
// the walk can tell: `descendant` among the first commits behind `ancestor` means `ancestor`
// is not its ancestor (history has no cycles), `ancestor` among those behind `descendant`
// means it is. A land asks this of a work branch a few commits past main, so the walk is a
// commit or two. Anything else (a commit not in the clone, longer history, grafts or a shallow
// clone, whose ancestry is not the objects' parents) is git's to answer.
import { isObjectId } from './object-id.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { GitObject, Tried } from './object-types.js';

const PARENT = /^parent ([0-9a-f]{40}|[0-9a-f]{64})$/;
// Commits read on each side before the walk gives up and git answers.
const WALK_LIMIT = 32;

type ReadObjects = (specs: readonly string[]) => Promise<Tried<(GitObject | undefined)[]>>;

/** true / false as `merge-base --is-ancestor` answers, or undefined: ask git. */
export async function ancestryByWalk(
  read: ReadObjects,
  commonDir: string,
  ancestor: string,
  descendant: string,
): Promise<boolean | undefined> {
  if (!isObjectId(ancestor) || !isObjectId(descendant)) return undefined;
  if (existsSync(join(commonDir, 'shallow')) || existsSync(join(commonDir, 'info', 'grafts'))) return undefined;
  const both = await read([ancestor, descendant]);
  if (!both.ok) return undefined;
  const [a0, d0] = both.value;
  if (a0?.type !== 'commit' || d0?.type !== 'commit') return undefined;
  if (ancestor === descendant) return true;
  const up = new Walk(read, a0);
  const down = new Walk(read, d0);
  // In turn, so the side that meets the other soonest decides without the other walking far.
  for (;;) {
    const [a, d] = [await up.step(), await down.step()];
    if (a === undefined || d === undefined) return undefined;
    if (up.seen.has(descendant)) return false;
    if (down.seen.has(ancestor)) return true;
    // Every commit behind `descendant` read, and `ancestor` not among them.
    if (down.complete) return false;
    if (a === 'done' && d === 'done') return undefined;
  }
}

/** The commits behind one, read a generation at a time. */
class Walk {
  readonly seen = new Set<string>();
  private frontier: string[];

  /** From a commit already read: its parents are the first generation to read. */
  constructor(
    private readonly read: ReadObjects,
    start: GitObject,
  ) {
    this.seen.add(start.oid);
    this.frontier = this.unseen(start);
  }

  /** Every commit behind the start read (the walk reached the roots within its limit). */
  get complete(): boolean {
    return this.frontier.length === 0;
  }

  /** Reads the next generation: 'more', 'done' (the walk ended: at the roots, or at its limit), undefined: unreadable. */
  async step(): Promise<'more' | 'done' | undefined> {
    if (!this.frontier.length || this.seen.size >= WALK_LIMIT) return 'done';
    const r = await this.read(this.frontier);
    if (!r.ok) return undefined;
    const next: string[] = [];
    for (const c of r.value) {
      if (c?.type !== 'commit') return undefined;
      next.push(...this.unseen(c));
    }
    this.frontier = next;
    return 'more';
  }

  /** The parents of `c` not seen yet, marked seen. */
  private unseen(c: GitObject): string[] {
    const fresh = parentsOf(c.content).filter((p) => !this.seen.has(p));
    for (const p of fresh) this.seen.add(p);
    return fresh;
  }
}

/** The `parent <id>` lines of a commit's header, in order. */
export function parentsOf(body: Buffer): string[] {
  let end = body.indexOf('\n\n', 0, 'latin1');
  if (end < 0) end = body.length;
  const parents: string[] = [];
  for (const line of body.toString('latin1', 0, end).split('\n')) {
    const m = PARENT.exec(line);
    if (m) parents.push(m[1]!);
  }
  return parents;
}
