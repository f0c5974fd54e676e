// The command line and environment of Gemini CLI in a lane: headless (`-p`, the turn's text
// on stdin so no prompt meets the argument length limit), events as stream-json, every tool call
// approved (`--approval-mode yolo`: a headless agent cannot ask, and the lane's sandbox is the
// boundary), a later turn resuming the session by its id (`-r <session>`). The worktree is
// trusted by a variable, and the CLI does not start a second copy of itself.
import { UsageError } from '../../../core/refusals.js';
import { checkEnvNames } from '../../../machine/sandbox/environment.js';
import { CONFIG_PATH, type GeminiConfig } from '../../../repo/config.js';

export const DEFAULT_GEMINI_PROGRAM = 'gemini';

/**
 * What Gemini CLI takes from the lane's environment whatever the config says: its endpoint. Its
 * key (GEMINI_API_KEY) is passed too only where no model gateway holds it (installs.ts `passedByDefault`).
 */
const GEMINI_ENV = ['GOOGLE_GEMINI_BASE_URL'] as const;

// The flags the runtime sets itself: a config that set them too would break the stream abcd
// reads, resume another session, or let the agent ask a person who is not there.
const OWN_FLAGS = [
  '-p',
  '--prompt',
  '-i',
  '--prompt-interactive',
  '-o',
  '--output-format',
  '--approval-mode',
  '-y',
  '--yolo',
  '-r',
  '--resume',
  '--session-id',
  '--session-file',
  '-m',
  '--model',
  '-w',
  '--worktree',
];

// What keeps the CLI in the lane's worktree as one process: trusted without asking, no relaunch.
export const GEMINI_QUIET_ENV: Readonly<Record<string, string>> = {
  GEMINI_CLI_TRUST_WORKSPACE: 'true',
  GEMINI_CLI_NO_RELAUNCH: 'true',
};

/** The names the agent's environment takes for Gemini CLI: the defaults and `lanes.gemini.env`. */
export function geminiEnvNames(cfg: GeminiConfig | undefined): string[] {
  return [...GEMINI_ENV, ...checkEnvNames(cfg?.env ?? [], 'lanes.gemini.env')];
}

/** Checks `lanes.gemini` before anything is claimed: a flag the runtime owns is a usage error. */
export function checkGeminiConfig(cfg: GeminiConfig): void {
  for (const a of cfg.args ?? []) {
    const flag = a.split('=')[0]!;
    if (!OWN_FLAGS.includes(flag)) continue;
    const instead = flag === '-m' || flag === '--model' ? ' (use lanes.gemini.model instead)' : '';
    throw new UsageError(
      `lanes.gemini.args sets ${flag}, which the gemini runtime sets itself${instead}; remove it from .abcd/config.json on main.`,
      'config',
      { path: CONFIG_PATH, reason: 'wrong-type', key: 'lanes.gemini.args' },
    );
  }
}

/** The program and its arguments; `resume` continues the session an earlier run named. */
export function geminiArgv(cfg: GeminiConfig, o: { resume?: string } = {}): string[] {
  return [
    cfg.program ?? DEFAULT_GEMINI_PROGRAM,
    // The text comes on stdin; -p with nothing after it only makes the run headless.
    '-p',
    '',
    '-o',
    'stream-json',
    '--approval-mode',
    'yolo',
    ...(cfg.model ? ['-m', cfg.model] : []),
    ...(o.resume ? ['-r', o.resume] : []),
    ...(cfg.args ?? []),
  ];
}
