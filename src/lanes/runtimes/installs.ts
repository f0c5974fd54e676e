// Where a built-in runtime's CLI comes from, at the version abcd's own suite runs it (the
// devDependency in package.json; test/runtime-installs.test.ts keeps the two equal), as each
// runtime's spec names it. A lane names it when the CLI is missing; `abcd init --ci` installs
// it in the generated job. And where its model key goes: the gateway, or the agent's env list.
import type { Env } from '../../core/deps.js';
import { UsageError } from '../../core/refusals.js';

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
  /** In a sandbox, abcd's model gateway holds the key and the agent never does (ADR 0122). */
  gateway: boolean;
  /** Its key variable is passed to the agent without a config naming it, where no gateway holds it. */
  passedByDefault: boolean;
  /** The install line a person (or a CI job) runs. */
  command: string;
}

/** A runtime's install, with the line that installs it at the version abcd is tested with. */
export function install(o: Omit<RuntimeInstall, 'command'>): RuntimeInstall {
  return { ...o, command: `npm install --global ${o.package}@${o.version}` };
}

/** Whether abcd's model gateway carries the runtime's key: a built-in runtime that has one, in a sandbox. */
export function gatewayCarriesKey(install: RuntimeInstall | undefined, sandbox: 'bwrap' | 'none'): boolean {
  return sandbox === 'bwrap' && install?.gateway === true;
}

/** The variables the agent is passed for its model key without a config naming them: none where the gateway holds it. */
export function keyPassedByDefault(install: RuntimeInstall | undefined, gateway: boolean): string[] {
  return install?.passedByDefault && !gateway ? [install.keyVariable] : [];
}

/**
 * Where the runtime's model key goes, checked before anything is claimed. In a sandbox whose
 * gateway carries it, naming the key for the agent is refused: the agent would hold what the
 * gateway exists to keep from it. Otherwise a key set where abcd runs but passed to no agent is
 * refused: the CLI would start, find no credential and say "Not logged in" after the claim. A
 * key the lane passes under another name (a proxy's token) is the person's choice.
 */
export function checkModelKeyPassed(
  install: RuntimeInstall | undefined,
  env: Env,
  passed: readonly string[],
  o: { gateway: boolean },
): void {
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
