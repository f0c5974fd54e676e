// Where each built-in runtime's CLI comes from, at the version abcd's own suite runs it (the
// devDependency in package.json; test/runtime-installs.test.ts keeps the two equal). A lane
// names it when the CLI is missing; `abcd init --ci` installs it in the generated job.
import type { Env } from '../../core/deps.js';
import { UsageError } from '../../core/refusals.js';
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
  /** Every variable the CLI takes its model credential from (the key itself first). */
  keyVariables: readonly string[];
  /** In a sandbox, abcd's model gateway holds the key and the agent never does (ADRs 0122, 0123). */
  gateway: boolean;
  /** Where no gateway holds it, the key is passed to the agent without a config naming it (Codex's OPENAI_API_KEY). */
  passedByDefault: boolean;
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
    keyVariables: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'],
    gateway: true,
    passedByDefault: false,
  }),
  codex: install({
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
};

/** Whether abcd's model gateway carries the runtime's key: a built-in runtime that has one, in a sandbox. */
export function gatewayCarriesKey(runtime: RuntimeName, sandbox: 'bwrap' | 'none'): boolean {
  return sandbox === 'bwrap' && RUNTIME_INSTALLS[runtime]?.gateway === true;
}

/** The variables the agent is passed for its model key without a config naming them: none where the gateway holds it. */
export function keyPassedByDefault(runtime: RuntimeName, gateway: boolean): string[] {
  const install = RUNTIME_INSTALLS[runtime];
  return install?.passedByDefault && !gateway ? [install.keyVariable] : [];
}

/**
 * Where the runtime's model key goes, checked before anything is claimed. In a sandbox whose
 * gateway carries it, naming the key for the agent is refused: the agent would hold what the
 * gateway exists to keep from it. Otherwise a key set where abcd runs but passed to no agent is
 * refused: the CLI would start, find no credential and say "Not logged in" after the claim. A
 * key the lane passes under another name (a proxy's token) is the person's choice.
 */
export function checkModelKeyPassed(runtime: RuntimeName, env: Env, passed: readonly string[], o: { gateway: boolean }): void {
  const install = RUNTIME_INSTALLS[runtime];
  if (!install) return;
  if (o.gateway) {
    const named = install.keyVariables.find((v) => passed.includes(v));
    if (!named) return;
    throw new UsageError(
      `${install.envKey} (or lanes.env) names ${named}, but in a sandbox abcd's model gateway adds the key to every model request ` +
        `and the agent never holds it: remove "${named}" from it in .abcd/config.json on main; nothing was claimed.`,
      'variable',
      { name: named, key: install.envKey },
    );
  }
  if (install.keyVariables.some((v) => passed.includes(v))) return;
  const set = install.keyVariables.find((v) => env[v]);
  if (!set) return;
  throw new UsageError(
    `${set} is set in abcd's environment, but a lane passes its agent only the variables its config names, and none names ${set}: ` +
      `${install.name} would start without its model key. Add "${set}" to ${install.envKey} (or lanes.env) in .abcd/config.json on main; nothing was claimed.`,
    'variable',
    { name: set, key: install.envKey },
  );
}
