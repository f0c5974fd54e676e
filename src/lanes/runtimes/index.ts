// The runtimes a lane can run its agent with, by name.
import { commandRuntime } from './command.js';
import type { Runtime, RuntimeName } from './runtime.js';

export interface RuntimeChoice {
  name: RuntimeName;
  /** The `command` runtime's shell command (--agent). */
  command?: string;
}

export function runtimeFor(c: RuntimeChoice): Runtime {
  switch (c.name) {
    case 'command':
      return commandRuntime(c.command ?? '');
    default:
      throw new Error(`runtime ${c.name} is not built in yet`);
  }
}
