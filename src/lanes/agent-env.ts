// The agent's environment is built, never inherited: a forge token, an abcd credential or
// anything else the lane's process holds reaches the agent only if `lanes.env` names it.
import type { Env } from '../core/deps.js';
import { UsageError } from '../core/refusals.js';

// What a shell and its tools need to behave, and nothing that authenticates.
const ALLOWED = ['PATH', 'LANG', 'LANGUAGE', 'TERM', 'TZ', 'COLORTERM', 'NO_COLOR', 'USER', 'LOGNAME', 'SHELL'] as const;
// Names a repository's config may never pass to an agent, whatever it says: the tokens an unattended lane must never hand an agent.
const NEVER = /^(GH_TOKEN|GITHUB_TOKEN|GH_ENTERPRISE_TOKEN|GITHUB_ENTERPRISE_TOKEN|ABCD_.*|GIT_.*|SSH_AUTH_SOCK)$/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,100}$/;

/** What abcd tells the agent about its cycle. */
export interface CycleVars {
  item: string;
  itemFile: string;
  worktree: string;
  runId: string;
  runHead: string;
  startedAt: number;
  mailbox: string;
  usage: string;
  home: string;
  tmp: string;
}

/** The agent's whole environment: the allow-list, the names `lanes.env` adds, and the cycle's. */
export function buildAgentEnv(env: Env, extraNames: readonly string[], v: CycleVars): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...ALLOWED, ...extraNames.filter((n) => !NEVER.test(n))]) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  for (const [k, value] of Object.entries(env)) if (k.startsWith('LC_') && value !== undefined) out[k] = value;
  out.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  Object.assign(out, {
    HOME: v.home,
    TMPDIR: v.tmp,
    ABCD_ITEM: v.item,
    ABCD_ITEM_FILE: v.itemFile,
    ABCD_WORKTREE: v.worktree,
    ABCD_RUN_ID: v.runId,
    ABCD_RUN_HEAD: v.runHead,
    ABCD_RUN_STARTED_AT: new Date(v.startedAt).toISOString(),
    ABCD_MAILBOX: v.mailbox,
    ABCD_USAGE: v.usage,
  });
  return out;
}

/** Checks `lanes.env` names; a forbidden or malformed one is a usage error naming it. */
export function checkEnvNames(names: readonly string[]): string[] {
  for (const n of names) {
    if (!NAME.test(n)) throw new UsageError(`lanes.env names "${n.slice(0, 60)}", which is not a variable name.`, { name: n.slice(0, 60) });
    if (NEVER.test(n)) {
      throw new UsageError(`lanes.env names ${n}, which a lane never passes to an agent (forge tokens, abcd's and git's own variables).`, {
        name: n,
      });
    }
  }
  return [...names];
}
