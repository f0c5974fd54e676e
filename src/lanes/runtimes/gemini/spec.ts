// The `gemini` runtime's spec: Gemini CLI headless (gemini.ts), read from `lanes.gemini`. Its
// key (`GEMINI_API_KEY`) stays in abcd's model gateway in a sandbox, and is passed to the agent
// only where there is none; a team's GEMINI_CLI_HOME may hold MCP servers' env and keys, so
// every sandbox hides it and the agent gets a private one (gemini-home.ts).
import { install } from '../installs.js';
import { RUNTIME_HOMES } from '../homes.js';
import type { RuntimeSpec } from '../spec.js';
import { refuseAgentFlag } from '../spec.js';
import { checkGeminiConfig, DEFAULT_GEMINI_PROGRAM, geminiEnvNames } from './gemini-args.js';
import { GeminiEvents } from './gemini-events.js';
import { geminiRuntime } from './gemini.js';
import { geminiLines } from './transcript.js';

export const geminiSpec: RuntimeSpec = {
  name: 'gemini',
  install: install({
    name: 'Gemini CLI',
    package: '@google/gemini-cli',
    version: '0.61.0',
    programKey: 'lanes.gemini.program',
    keyVariable: 'GEMINI_API_KEY',
    envKey: 'lanes.gemini.env',
    keyVariables: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
    gateway: true,
    passedByDefault: true,
  }),
  homeVariables: RUNTIME_HOMES.gemini,
  setup: (lanes, o) => {
    refuseAgentFlag('gemini', o.agentFlag);
    const cfg = lanes.gemini ?? {};
    checkGeminiConfig(cfg);
    const names = geminiEnvNames(cfg);
    return {
      agent: '',
      program: cfg.program ?? DEFAULT_GEMINI_PROGRAM,
      passed: names,
      envNames: names,
      runtime: (laneEnv) => geminiRuntime(cfg, laneEnv),
    };
  },
  initBlock: (lanes) => ({ gemini: lanes.gemini ?? {} }),
  transcriptLines: geminiLines,
  activityReader: (onActivity) => {
    const events = new GeminiEvents(onActivity);
    return { line: (text) => events.feed(`${text}\n`) };
  },
};
