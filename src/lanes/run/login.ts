// The login check before a lane claims anything on a forge.
import { assertNoLogin, describeGate } from '../../forges/login.js';
import type { Repo } from '../../repo/repo.js';

/**
 * The login check before a lane claims anything: on a forge remote, refuse (exit 7) when the
 * person's login is within reach; on file:// and other non-forge remotes say it does not apply.
 */
export async function checkLaneLogin(repo: Repo, attended: boolean): Promise<string> {
  const { env } = repo.deps;
  const remoteUrl = await repo.git.clone.remoteUrl(repo.store.remote);
  const gate = await assertNoLogin({
    attended,
    ...(remoteUrl !== undefined ? { remoteUrl } : {}),
    env,
    home: repo.deps.config.home,
  });
  return describeGate(gate);
}
