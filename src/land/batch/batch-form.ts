// Forming a batch in its head's worktree: the batches ahead stacked as they will land (the
// predicted base), then the head's own entry, then each free entry behind it that integrates on
// the stack. A batch not yet full keeps taking entries that join until `land.batchWait` ends,
// integrating each as it comes, so a full batch starts its checks at once.
import { Conflict } from '../../core/refusals.js';
import type { Git } from '../../git/git.js';
import type { QueueEntry, Snapshot } from '../../repo/snapshot.js';
import { groupKey, type Group } from './batch-groups.js';
import { stackBatch } from './batch-stack.js';
import { entryIntegration, fetchHeads } from '../speculation/speculation.js';
import type { LandContext } from '../types.js';
import { integrate } from '../worktree.js';

// How often a filling batch's head reads the queue for entries that joined.
const FILL_POLL_MS = 250;

export interface Formed {
  base: string;
  /** The members taken, in order, and each one's own integrated commit (the head's first). */
  chosen: QueueEntry[];
  commits: string[];
  tip: string;
  /** The last read of the queue. */
  snap: Snapshot;
}

export interface HeadTurn {
  snap: Snapshot;
  ahead: Group[];
  members: QueueEntry[];
  /** Its members are named already (a head taking its turn again): no more join. */
  announced: boolean;
}

/**
 * Forms the batch. `again`: the queue changed under the fill, take the turn again; `alone`: a
 * batch ahead does not stack or its own work does not integrate on it, so it waits to lead from
 * the front; a Conflict when its own work does not integrate on main itself.
 * `reread` reads the queue again and answers this head's turn, or undefined when it no longer leads.
 */
export async function formBatch(
  ctx: LandContext,
  wt: Git,
  o: { mainTip: string; me: QueueEntry; turn: HeadTurn; size: number; fillUntil: number; reread: () => Promise<HeadTurn | undefined> },
): Promise<Formed | Conflict | 'again' | 'alone'> {
  const { repo, target, keeper } = ctx;
  const env = repo.deps.env;
  const { clock } = repo.deps;
  let base = o.mainTip;
  // main as each batch ahead lands it, as predicted.
  const landings: string[] = [];
  for (const g of o.turn.ahead) {
    const st = await stackBatch(wt, { env, base, members: [g.head, ...g.members] });
    if (st.kind === 'conflict') return 'alone'; // its head refuses or drops one: wait to see how
    base = st.stack.landing;
    landings.push(base);
  }
  const own = await stackBatch(wt, { env, base, members: [o.me] });
  if (own.kind === 'conflict') return o.turn.ahead.length ? 'alone' : own.error;
  const chosen: QueueEntry[] = [];
  const commits = [own.stack.tip];
  const passed = new Set<string>();
  let tip = own.stack.tip;
  let current = tip;
  let turn = o.turn;
  for (;;) {
    for (const c of turn.members) {
      if (chosen.length >= o.size - 1) break;
      const key = `${c.ref} ${c.tip}`;
      if (passed.has(key) || chosen.some((m) => m.ref === c.ref)) continue;
      passed.add(key);
      // A free entry that does not integrate on the ones before it is left for a later batch.
      try {
        tip = current = await integrate(wt, { ...entryIntegration(c, tip), env, current });
        chosen.push(c);
        commits.push(tip);
      } catch (e) {
        if (!(e instanceof Conflict)) throw e;
        current = '';
      }
    }
    if (chosen.length >= o.size - 1 || turn.announced || clock.now() >= o.fillUntil || keeper.interrupted) break;
    await clock.sleep(Math.min(FILL_POLL_MS, o.fillUntil - clock.now()), keeper.signal);
    const next = await o.reread();
    // Its place changed (it no longer leads, or a batch ahead landed otherwise than predicted): form again.
    if (!next || !onCourse(o.turn.ahead, next.ahead, landings, await target.mainTip())) return 'again';
    const joined = next.members.filter((m) => !passed.has(`${m.ref} ${m.tip}`));
    if (joined.length && !(await fetchHeads(repo, target, joined))) break;
    turn = next;
  }
  if (current !== tip) await wt.work.checkout(tip);
  return { base, chosen, commits, tip, snap: turn.snap };
}

/**
 * Whether the stack formed on `was` still holds with `now` ahead: the batches ahead unchanged,
 * or the first of them gone and main exactly where their predicted landing put it.
 */
function onCourse(was: readonly Group[], now: readonly Group[], landings: readonly string[], mainTip: string): boolean {
  const gone = was.length - now.length;
  if (gone < 0 || !now.every((g, k) => groupKey(g) === groupKey(was[gone + k]!))) return false;
  return gone === 0 || landings[gone - 1] === mainTip;
}
