// Where each built-in runtime's CLI comes from, at the version abcd's own suite runs it (the
// devDependency in package.json; test/runtime-installs.test.ts keeps the two equal). A lane
// names it when the CLI is missing; `abcd init --ci` installs it in the generated job.
import type { RuntimeName } from './runtime.js';

export interface RuntimeInstall {
  /** The CLI's name in messages. */
  name: string;
  /** The npm package and the version abcd is tested with. */
  package: string;
  version: string;
  /** The config key that names its program instead of the one on PATH. */
  programKey: string;
  /** The variable that carries its model API key, and the config key that passes it to the agent. */
  keyVariable: string;
  envKey: string;
  /** The install line a person (or a CI job) runs. */
  command: string;
}

function install(o: Omit<RuntimeInstall, 'command'>): RuntimeInstall {
  return { ...o, command: `npm install --global ${o.package}@${o.version}` };
}

export const RUNTIME_INSTALLS: Readonly<Record<RuntimeName, RuntimeInstall | undefined>> = {
  command: undefined,
  claude: install({
    name: 'Claude Code',
    package: '@anthropic-ai/claude-code',
    version: '2.1.197',
    programKey: 'lanes.claude.program',
    keyVariable: 'ANTHROPIC_API_KEY',
    envKey: 'lanes.claude.env',
  }),
  codex: install({
    name: 'Codex',
    package: '@openai/codex',
    version: '0.171.0',
    programKey: 'lanes.codex.program',
    keyVariable: 'OPENAI_API_KEY',
    envKey: 'lanes.codex.env',
  }),
};
