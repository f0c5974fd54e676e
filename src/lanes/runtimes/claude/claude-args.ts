// The command line and environment of Claude Code in a lane: headless (`-p`), messages in
// and out as stream-json so a steer can be written to the running session, user messages
// replayed so abcd sees when one was taken, and permissions that need no person: the tools a
// lane's agent works with are allowed by name and edits in the worktree are accepted
// (bypassPermissions is refused as root, and a headless agent cannot ask).
import { UsageError } from '../../../core/refusals.js';
import { checkEnvNames } from '../../../machine/sandbox/environment.js';
import { CONFIG_PATH, type ClaudeConfig } from '../../../repo/config.js';

export const DEFAULT_CLAUDE_PROGRAM = 'claude';
/** What a lane's agent needs: read, edit and run commands (git, the tests) in its worktree. */
export const DEFAULT_CLAUDE_TOOLS: readonly string[] = ['Read', 'Write', 'Edit', 'NotebookEdit', 'Glob', 'Grep', 'Bash'];

// The flags the runtime sets itself: a config that set them too would break the stream
// abcd reads, or let the agent ask a person who is not there.
const OWN_FLAGS = [
  '-p',
  '--print',
  '--input-format',
  '--output-format',
  '--verbose',
  '--replay-user-messages',
  '--resume',
  '-r',
  '--continue',
  '-c',
  '--session-id',
  '--fork-session',
  '--permission-mode',
  '--allowedTools',
  '--allowed-tools',
  '--model',
  '--max-turns',
];

// What keeps the CLI from calling home from inside a lane: no update checks, no telemetry.
export const CLAUDE_QUIET_ENV: Readonly<Record<string, string>> = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
};

/** Checks `lanes.claude` before anything is claimed: a flag the runtime owns or a forbidden variable is a usage error. */
export function checkClaudeConfig(cfg: ClaudeConfig): void {
  for (const a of cfg.args ?? []) {
    const flag = a.split('=')[0]!;
    if (OWN_FLAGS.includes(flag)) {
      throw new UsageError(
        `lanes.claude.args sets ${flag}, which the claude runtime sets itself` +
          (flag === '--model' || flag === '--max-turns' || flag.startsWith('--allowed')
            ? ` (use lanes.claude.${flag === '--model' ? 'model' : flag === '--max-turns' ? 'maxTurns' : 'allowedTools'} instead)`
            : '') +
          '; remove it from .abcd/config.json on main.',
        'config',
        { path: CONFIG_PATH, reason: 'wrong-type', key: 'lanes.claude.args' },
      );
    }
  }
  checkEnvNames(cfg.env ?? [], 'lanes.claude.env');
}

/** The program and its arguments; `resume` continues a session whose process is gone. */
export function claudeArgv(cfg: ClaudeConfig, o: { resume?: string } = {}): string[] {
  const tools = cfg.allowedTools ?? DEFAULT_CLAUDE_TOOLS;
  return [
    cfg.program ?? DEFAULT_CLAUDE_PROGRAM,
    '-p',
    '--input-format',
    'stream-json',
    '--output-format',
    'stream-json',
    '--verbose',
    '--replay-user-messages',
    '--permission-mode',
    'acceptEdits',
    ...(tools.length ? ['--allowedTools', tools.join(',')] : []),
    ...(cfg.model ? ['--model', cfg.model] : []),
    ...(cfg.maxTurns ? ['--max-turns', String(cfg.maxTurns)] : []),
    ...(o.resume ? ['--resume', o.resume] : []),
    ...(cfg.args ?? []),
  ];
}

/** One user message on the CLI's stdin; `uuid` comes back in its replay when the CLI takes it. */
export function userMessageLine(text: string, uuid: string): string {
  return JSON.stringify({ type: 'user', uuid, message: { role: 'user', content: text } }) + '\n';
}
