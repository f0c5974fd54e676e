// The git side of the credential channel: the helper's command line and the per-invocation
// config that installs it. Only the helper's text and the socket path reach git's environment;
// neither is a secret.
import type { Env } from '../../../core/deps.js';

/** How git starts `abcd credential`: absolute paths, so git's PATH and cwd do not matter. */
export interface HelperLauncher {
  /** The node binary (the CLI passes process.execPath). */
  node: string;
  /** The bin/abcd script. */
  script: string;
}

/** Single-quotes a word for sh: git runs a helper that starts with `!` through `sh -c`. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The credential.helper value; git appends the action (get, store, erase) after it. */
export function helperCommand(launcher: HelperLauncher, socketPath: string): string {
  const words = [launcher.node, launcher.script].map(shellQuote).join(' ');
  return `!${words} credential --socket ${shellQuote(socketPath)}`;
}

/**
 * GIT_CONFIG_COUNT/KEY/VALUE for one git call: `credential.helper` reset to empty first (that
 * clears every helper configured so far, system, ~/.gitconfig and repository, host-scoped too),
 * then abcd's. Appended after any entries `baseEnv` already carries so those still apply, and
 * so a helper among them is cleared as well.
 */
export function credentialConfigEnv(helper: string, baseEnv: Env = {}): Record<string, string> {
  const existing = Number(baseEnv.GIT_CONFIG_COUNT ?? '0');
  // A bogus count would make git fail anyway; ours replaces it with a valid one.
  const start = Number.isSafeInteger(existing) && existing > 0 ? existing : 0;
  const entries: Array<[string, string]> = [
    ['credential.helper', ''],
    ['credential.helper', helper],
  ];
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(start + entries.length) };
  entries.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${start + i}`] = key;
    env[`GIT_CONFIG_VALUE_${start + i}`] = value;
  });
  return env;
}
