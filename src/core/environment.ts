// A process environment as abcd passes it around: the variables, some of them unset.
export type Env = Readonly<Record<string, string | undefined>>;

/** The variables that are set, as a child process's environment wants them. */
export function definedEnv(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}
