// The names of the runtimes a lane can run its agent with, in a module of their own without zod:
// the command line offers them at every start, before any schema or runtime is loaded.

/**
 * The runtimes a lane can run its agent with. Each has its folder under src/lanes/runtimes and
 * one line in its registry there; the registry's type fails the build while a name here has none.
 */
export const RUNTIME_NAMES = ['command', 'claude', 'codex', 'gemini'] as const;
export type RuntimeName = (typeof RUNTIME_NAMES)[number];
/** What runs a lane's agent when neither --runtime nor lanes.runtime says: the agent command. */
export const DEFAULT_RUNTIME: RuntimeName = 'command';
