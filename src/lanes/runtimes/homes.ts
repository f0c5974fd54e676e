// The variables that name a runtime CLI's config folder, apart from the runtimes themselves:
// every sandbox hides what they name, so abcd reads them at every start, and loading the
// runtimes (their schemas, stream readers and gateway) there would cost every verb its start-up.
// Each runtime's spec takes its own line from here; a name without a line fails the build.
import type { RuntimeName } from '../../repo/runtime-names.js';

export const RUNTIME_HOMES = {
  command: [],
  claude: [],
  codex: ['CODEX_HOME'],
  gemini: ['GEMINI_CLI_HOME'],
} as const satisfies Record<RuntimeName, readonly string[]>;

/** Every variable that names a config folder of a runtime's CLI. */
export const RUNTIME_HOME_VARIABLES: readonly string[] = Object.values(RUNTIME_HOMES).flat();
