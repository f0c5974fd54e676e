import { execa } from 'execa';
import { ABCD_BIN } from './session.js';

/**
 * Runs abcd on a real pseudo-terminal (script(1)) sized with stty (0x0 is a pty nobody sized)
 * and returns everything the terminal received.
 */
export async function onTty(
  cwd: string,
  env: Record<string, string>,
  args: string[],
  cols = 120,
  rows = 40,
): Promise<{ code: number; screen: string }> {
  const cmd = `stty rows ${rows} cols ${cols}; exec ${[process.execPath, ABCD_BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')}`;
  const r = await execa('script', ['-qfec', cmd, '/dev/null'], { cwd, env, extendEnv: false, reject: false, timeout: 60_000 });
  return { code: r.exitCode ?? -1, screen: String(r.stdout) };
}
