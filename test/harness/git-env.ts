import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

/** Temp dirs made by a test file, removed by cleanupTemp(). */
const made: string[] = [];

export async function tempDir(prefix: string): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), `abcd-${prefix}-`));
  made.push(d);
  return d;
}

export async function cleanupTemp(): Promise<void> {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
}

/** An environment for git and abcd with its own HOME and nothing from the machine's config. */
export function isolatedEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Test Person',
    GIT_AUTHOR_EMAIL: 'person@example.com',
    GIT_COMMITTER_NAME: 'Test Person',
    GIT_COMMITTER_EMAIL: 'person@example.com',
    LANG: 'C',
    // The run's one compile cache for every abcd it starts (global-setup.ts makes the folder):
    // each session's HOME is new, so the cache bin/abcd keeps there would start cold every time.
    ...(process.env.ABCD_TEST_RUN_DIR ? { NODE_COMPILE_CACHE: join(process.env.ABCD_TEST_RUN_DIR, 'compile-cache') } : {}),
    ...extra,
  };
}

/** Runs git and fails the test on a non-zero exit. */
export async function git(cwd: string, args: string[], env: Record<string, string>): Promise<string> {
  const r = await execa('git', ['-C', cwd, ...args], { env, extendEnv: false, reject: false });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${r.stderr}`);
  return r.stdout.trim();
}

/** Config every test repository gets: no background work, no signing. */
export const QUIET_CONFIG: ReadonlyArray<[string, string]> = [
  ['commit.gpgsign', 'false'],
  ['tag.gpgsign', 'false'],
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
  ['init.defaultBranch', 'main'],
];

type LocalClone<Tip> = { root: string; env: Record<string, string>; dir: string; gitDir: string; tip: Tip };

/**
 * A fresh local repository on `main` with the quiet config, in its own temporary folder and
 * HOME; with `firstFile`, one commit adding it (`tip` is that commit).
 */
export async function localClone(prefix: string): Promise<LocalClone<undefined>>;
export async function localClone(prefix: string, firstFile: { name: string; text: string }): Promise<LocalClone<string>>;
export async function localClone(prefix: string, firstFile?: { name: string; text: string }): Promise<LocalClone<string | undefined>> {
  const root = await tempDir(prefix);
  const env = isolatedEnv(root);
  const dir = join(root, 'clone');
  await git(root, ['init', '-q', '-b', 'main', dir], env);
  for (const [k, v] of QUIET_CONFIG) await git(dir, ['config', k, v], env);
  let tip: string | undefined;
  if (firstFile) {
    await writeFile(join(dir, firstFile.name), firstFile.text);
    await git(dir, ['add', '.'], env);
    await git(dir, ['commit', '-q', '-m', firstFile.name], env);
    tip = await git(dir, ['rev-parse', 'HEAD'], env);
  }
  return { root, env, dir, gitDir: join(dir, '.git'), tip };
}

/** Config as `-c key=value` options: a clone keeps them in its own config, set in one process. */
export function configOptions(config: ReadonlyArray<readonly [string, string]>): string[] {
  return config.flatMap(([k, v]) => ['-c', `${k}=${v}`]);
}
