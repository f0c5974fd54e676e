// The runtimes a lane can run its agent with, by name.
import type { CodexConfig } from '../../repo/config.js';
import { codexRuntime } from './codex.js';
import { commandRuntime } from './command.js';
import type { Runtime, RuntimeName } from './runtime.js';

export interface RuntimeChoice {
  name: RuntimeName;
  /** The `command` runtime's shell command (--agent). */
  command?: string;
  /** `lanes.codex` of main's config. */
  codex?: CodexConfig;
}

export function runtimeFor(c: RuntimeChoice): Runtime {
  switch (c.name) {
    case 'command':
      return commandRuntime(c.command ?? '');
    case 'codex':
      return codexRuntime(c.codex ?? {});
    default:
      throw new Error(`runtime ${c.name} is not built in yet`);
  }
}
