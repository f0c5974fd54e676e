// The `codex` runtime's spec: Codex CLI headless (codex.ts), read from `lanes.codex`. A team's
// CODEX_HOME may hold provider tokens and MCP servers' env, so every sandbox hides it; the
// agent gets a private copy of what is safe in it (codex-home.ts).
import { install } from '../installs.js';
import { RUNTIME_HOMES } from '../homes.js';
import type { RuntimeSpec } from '../spec.js';
import { refuseAgentFlag } from '../spec.js';
import { codexEnvNames, codexProgram, codexRuntime } from './codex.js';
import { CodexEvents } from './codex-events.js';
import { codexPlatformBinds } from './codex-program.js';
import { codexLines } from './transcript.js';

export const codexSpec: RuntimeSpec = {
  name: 'codex',
  install: install({
    name: 'Codex',
    package: '@openai/codex',
    version: '0.171.0',
    programKey: 'lanes.codex.program',
    keyVariable: 'OPENAI_API_KEY',
    envKey: 'lanes.codex.env',
    keyVariables: ['OPENAI_API_KEY'],
    gateway: true,
    passedByDefault: true,
  }),
  homeVariables: RUNTIME_HOMES.codex,
  setup: (lanes, o) => {
    refuseAgentFlag('codex', o.agentFlag);
    const names = codexEnvNames(lanes.codex);
    return {
      agent: '',
      program: codexProgram(lanes.codex),
      passed: names,
      envNames: names,
      ...(lanes.codex?.keyFile ? { keyFile: { key: 'lanes.codex.keyFile', setting: lanes.codex.keyFile } } : {}),
      runtime: (laneEnv, heldKey) => codexRuntime(lanes.codex ?? {}, laneEnv, heldKey),
    };
  },
  programBinds: codexPlatformBinds,
  initBlock: (lanes) => ({ codex: lanes.codex ?? {} }),
  transcriptLines: codexLines,
  activityReader: (onActivity) => {
    const events = new CodexEvents(onActivity);
    return { line: (text) => events.feed(`${text}\n`) };
  },
};
