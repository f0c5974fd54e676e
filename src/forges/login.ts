// The login check as the rest of abcd asks it: is the person's forge login within reach of an
// unattended lane? GitHub's check (github/credentials/login-check.ts) is the one abcd has, and it
// is not chosen by the remote's detected forge: it fails closed, an unreadable remote counting as
// github.com, and it reads the person's own GitHub settings (gh treats GH_HOST as their host, so
// it counts as a configured Enterprise host).
import type { Env } from '../core/deps.js';
import { assertNoLogin as assertNoGitHubLogin, type LoginGate } from './github/credentials/login-check.js';

export { describeGate, type LoginGate } from './github/credentials/login-check.js';

export interface ForgeLoginInput {
  /** A person starts and watches the lane: the check does not apply. */
  attended: boolean;
  /** The remote's URL, or undefined when it could not be read. */
  remoteUrl?: string;
  /** A host named by the person (`--hostname`). */
  hostname?: string;
  env: Env;
  /** The home directory the lane runs with. */
  home: string;
}

/** Refuses (exit 7) when the person's login is within reach; otherwise says why the lane may go on. */
export function assertNoLogin(input: ForgeLoginInput): Promise<LoginGate> {
  return assertNoGitHubLogin({
    attended: input.attended,
    ...(input.hostname !== undefined ? { hostname: input.hostname } : {}),
    ...(input.remoteUrl !== undefined ? { remoteUrl: input.remoteUrl } : {}),
    enterpriseHosts: input.env.GH_HOST ? [input.env.GH_HOST] : [],
    env: input.env,
    home: input.home,
  });
}
