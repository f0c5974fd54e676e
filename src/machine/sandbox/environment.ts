// The environment of code abcd did not write (an agent, a land check) is built, never
// inherited: a forge token, an abcd credential or anything else abcd's process holds reaches
// it only if the repository's config names it, and some names it may never name.
import type { Env } from '../../core/deps.js';
import { UsageError } from '../../core/refusals.js';

// What a shell and its tools need to behave, and nothing that authenticates.
const ALLOWED = ['PATH', 'LANG', 'LANGUAGE', 'TERM', 'TZ', 'COLORTERM', 'NO_COLOR', 'USER', 'LOGNAME', 'SHELL'] as const;
// Names a repository's config may never pass on, whatever it says: rule 4's tokens, abcd's
// and git's own variables (GIT_* redirects git at other repositories or configs), the ssh agent.
const NEVER = /^(GH_TOKEN|GITHUB_TOKEN|GH_ENTERPRISE_TOKEN|GITHUB_ENTERPRISE_TOKEN|ABCD_.*|GIT_.*|SSH_AUTH_SOCK)$/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,100}$/;

/** The allow-list, the LC_* locale, and the extra names the config gives (never a NEVER name). */
export function allowedEnv(env: Env, extraNames: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...ALLOWED, ...extraNames.filter((n) => !NEVER.test(n))]) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  for (const [k, value] of Object.entries(env)) if (k.startsWith('LC_') && value !== undefined) out[k] = value;
  out.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  return out;
}

/** Checks the names a config key (`lanes.env`, `land.env`) lists; a forbidden or malformed one is a usage error naming it. */
export function checkEnvNames(names: readonly string[], key: string): string[] {
  for (const n of names) {
    if (!NAME.test(n))
      throw new UsageError(`${key} names "${n.slice(0, 60)}", which is not a variable name.`, 'variable', { name: n.slice(0, 60) });
    if (NEVER.test(n)) {
      throw new UsageError(
        `${key} names ${n}, which abcd never passes to code it runs (forge tokens, abcd's and git's own variables).`,
        'variable',
        {
          name: n,
        },
      );
    }
  }
  return [...names];
}
