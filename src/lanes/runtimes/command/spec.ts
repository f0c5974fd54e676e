// The `command` runtime's spec: the shell command of --agent or lanes.agent, run as it is; the
// sandbox shows its first word. It has no CLI of its own, no key and no folder of its own.
import { UsageError } from '../../../core/refusals.js';
import { RUNTIME_HOMES } from '../homes.js';
import type { RuntimeSpec } from '../spec.js';
import { commandRuntime } from './command.js';

export const commandSpec: RuntimeSpec = {
  name: 'command',
  homeVariables: RUNTIME_HOMES.command,
  setup: (_lanes, o) => {
    const agent = o.agent ?? '';
    if (agent.trim() === '') {
      throw new UsageError(
        'no agent command: pass --agent "<shell command>" or set lanes.agent in .abcd/config.json on main ' +
          '(or run a built-in agent: --runtime claude, --runtime codex or --runtime gemini).',
        'argument',
      );
    }
    return { agent, program: agent, passed: [], envNames: [], runtime: () => commandRuntime(agent) };
  },
  initBlock: () => ({}),
};
