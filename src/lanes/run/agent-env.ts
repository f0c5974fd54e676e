// The agent's environment is built, never inherited: a forge token, an abcd credential or
// anything else the lane's process holds reaches the agent only if `lanes.env` names it.
import type { Env } from '../../core/deps.js';
import { allowedEnv, checkEnvNames as checkNames } from '../../machine/sandbox/environment.js';

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
  return Object.assign(allowedEnv(env, extraNames), {
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
}

/** Checks `lanes.env` names; a forbidden or malformed one is a usage error naming it. */
export function checkEnvNames(names: readonly string[]): string[] {
  return checkNames(names, 'lanes.env');
}
