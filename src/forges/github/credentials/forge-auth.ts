// How git authenticates to a forge remote: abcd's App token through the credential channel.
import type { Env } from '../../../core/deps.js';
import type { NetworkAuth } from '../../../records/store.js';
import { withCredential, type HelperLauncher } from './channel.js';
import type { TokenSource } from './token-source.js';

/**
 * Every network git call on a forge gets the App token for that one invocation, through the
 * credential channel (never the person's login): fresh from the token source, so a long lane never sends an
 * expired one.
 */
export function forgeAuth(o: {
  tokens: TokenSource;
  gitHost: string;
  launcher: HelperLauncher;
  baseEnv: Env;
  /** abcd's config folder: where the channel's socket lives. */
  configDir: string;
}): NetworkAuth {
  return async (call) => {
    const { token } = await o.tokens.get();
    return withCredential({ token, launcher: o.launcher, host: o.gitHost, baseEnv: o.baseEnv, dir: o.configDir }, call);
  };
}
