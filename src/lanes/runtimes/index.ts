// The runtimes a lane can run its agent with, by name.
import type { Env } from '../../core/deps.js';
import type { ClaudeConfig, CodexConfig } from '../../repo/config.js';
import { claudeRuntime } from './claude/claude.js';
import { codexRuntime } from './codex/codex.js';
import { commandRuntime } from './command/command.js';
import type { Runtime, RuntimeName } from './runtime.js';

export interface RuntimeChoice {
  name: RuntimeName;
  /** The `command` runtime's shell command (--agent). */
  command?: string;
  /** `lanes.claude` (checked) and the lane's environment, which its `env` names are taken from. */
  claude?: ClaudeConfig;
  env?: Env;
  /** `lanes.codex` of main's config. */
  codex?: CodexConfig;
}

export function runtimeFor(c: RuntimeChoice): Runtime {
  switch (c.name) {
    case 'command':
      return commandRuntime(c.command ?? '');
    case 'claude':
      return claudeRuntime(c.claude ?? {}, c.env ?? {});
    case 'codex':
      return codexRuntime(c.codex ?? {});
    default: {
      // Every name is handled above: a new one fails the type check here.
      const unknown: never = c.name;
      throw new Error(`runtime ${String(unknown)} is not built in`);
    }
  }
}
