// Each lane acts in the same clone as its own session: the Repo view a lane's cycles use.
import { join } from 'node:path';
import { HeldMemory } from '../../repo/held.js';
import type { Repo } from '../../repo/repo.js';

// The holder's session is at most 100 characters (records/holder.ts).
const MAX_SESSION_CHARS = 100;

/**
 * The repository as lane `n` of run `runId` acts in it: the same clone and remote, its own
 * session (`<session>.lane<n>.<run>`), so two lanes, or two drains in one clone, never take
 * each other's claims for their own.
 */
export function laneRepo(repo: Repo, runId: string, n: number): Repo {
  const session = `${repo.me.session}.lane${n}.${runId}`.slice(-MAX_SESSION_CHARS);
  return {
    ...repo,
    me: { ...repo.me, session },
    held: new HeldMemory(join(repo.commonDir, 'abcd', 'held', session)),
  };
}
