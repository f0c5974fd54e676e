// The `claude` runtime's spec: Claude Code headless (claude.ts), read from `lanes.claude`. Its
// key stays in abcd's model gateway in a sandbox; its HOME is the cycle's own, so it has no
// folder of its own to hide.
import { install } from '../installs.js';
import { RUNTIME_HOMES } from '../homes.js';
import type { RuntimeSpec } from '../spec.js';
import { refuseAgentFlag } from '../spec.js';
import { checkClaudeConfig, DEFAULT_CLAUDE_PROGRAM } from './claude-args.js';
import { ClaudeStream } from './claude-stream.js';
import { claudeRuntime } from './claude.js';
import { claudeLines } from './transcript.js';

export const claudeSpec: RuntimeSpec = {
  name: 'claude',
  install: install({
    name: 'Claude Code',
    package: '@anthropic-ai/claude-code',
    version: '2.1.197',
    programKey: 'lanes.claude.program',
    keyVariable: 'ANTHROPIC_API_KEY',
    envKey: 'lanes.claude.env',
    keyVariables: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'],
    gateway: true,
    passedByDefault: false,
  }),
  homeVariables: RUNTIME_HOMES.claude,
  setup: (lanes, o) => {
    refuseAgentFlag('claude', o.agentFlag);
    const cfg = lanes.claude ?? {};
    checkClaudeConfig(cfg);
    return {
      agent: '',
      program: cfg.program ?? DEFAULT_CLAUDE_PROGRAM,
      // Claude Code takes its own names from the lane's environment (claude.ts), so the cycle's list has none of them.
      passed: cfg.env ?? [],
      envNames: [],
      ...(cfg.keyFile ? { keyFile: { key: 'lanes.claude.keyFile', setting: cfg.keyFile } } : {}),
      // The file's key is the API key, and the only credential the gateway carries.
      runtime: (laneEnv, heldKey) =>
        claudeRuntime(
          cfg,
          heldKey
            ? { ...laneEnv, ANTHROPIC_API_KEY: heldKey, ANTHROPIC_AUTH_TOKEN: undefined, CLAUDE_CODE_OAUTH_TOKEN: undefined }
            : laneEnv,
        ),
    };
  },
  initBlock: (lanes) => ({ claude: lanes.claude ?? {} }),
  transcriptLines: claudeLines,
  activityReader: (onActivity) => {
    const stream = new ClaudeStream({ onActivity });
    return { line: (text) => stream.push(`${text}\n`) };
  },
};
