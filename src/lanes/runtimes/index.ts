// The registry of runtimes a lane can run its agent with: one folder each, one line here. Its
// type holds it to the names of main's config (repo/config.ts's RUNTIME_NAMES): a name without
// a spec, or a spec without a name, fails the build.
import type { RuntimeName } from '../../repo/config.js';
import { claudeSpec } from './claude/spec.js';
import { codexSpec } from './codex/spec.js';
import { commandSpec } from './command/spec.js';
import { geminiSpec } from './gemini/spec.js';
import type { RuntimeSpec } from './spec.js';

export const RUNTIMES = {
  command: commandSpec,
  claude: claudeSpec,
  codex: codexSpec,
  gemini: geminiSpec,
} as const satisfies Record<RuntimeName, RuntimeSpec>;

/** The spec of a runtime by name. */
export function runtimeSpec(name: RuntimeName): RuntimeSpec {
  return RUNTIMES[name];
}
