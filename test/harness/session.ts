import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { configOptions, git, isolatedEnv, QUIET_CONFIG, tempDir } from './git-env.js';
import { makeRemote, type BareRemote } from './remote.js';
import { assertAnswerContract } from './answer-contract.js';

export const ABCD_BIN = resolve(import.meta.dirname, '../../bin/abcd');

/**
 * Parsed JSON as a test reads it: by path, the assertions themselves checking its shape (a type
 * per verb's answer here would be a second copy of the schemas the verbs declare).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests index into answers freely; the assertions check them
export type Json = any;

export interface AbcdRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The parsed --json answer, when stdout held one. */
  json: Json;
}

/** One agent session: its own clone, HOME, session id and person. */
export interface Session {
  name: string;
  dir: string;
  env: Record<string, string>;
  abcd(args: string[], opts?: { env?: Record<string, string>; timeoutMs?: number }): Promise<AbcdRun>;
  git(args: string[]): Promise<string>;
  /** Commits one file on the current branch. */
  commit(file: string, content: string, message?: string): Promise<string>;
}

export async function makeSession(
  remoteUrl: string,
  name: string,
  opts: { person?: string; env?: Record<string, string> } = {},
): Promise<Session> {
  const home = await tempDir(`home-${name}`);
  const person = opts.person ?? `${name}@example.com`;
  const env = isolatedEnv(home, {
    ABCD_SESSION: name,
    ABCD_MACHINE_DIR: join(home, 'machine'),
    GIT_AUTHOR_EMAIL: person,
    GIT_COMMITTER_EMAIL: person,
    ...opts.env,
  });
  await mkdir(join(home, '.config'), { recursive: true });
  const dir = join(home, 'work');
  const config = [...QUIET_CONFIG, ['user.email', person], ['user.name', name]] as const;
  await git(home, ['clone', '-q', ...configOptions(config), remoteUrl, dir], env);
  const s: Session = {
    name,
    dir,
    env,
    abcd: (args, o = {}) => runAbcd(dir, args, { ...env, ...o.env }, o.timeoutMs),
    git: (args) => git(dir, args, env),
    async commit(file, content, message = `change ${file}`) {
      await writeFile(join(dir, file), content);
      await git(dir, ['add', file], env);
      await git(dir, ['commit', '-q', '-m', message], env);
      return git(dir, ['rev-parse', 'HEAD'], env);
    },
  };
  return s;
}

export async function runAbcd(cwd: string, args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<AbcdRun> {
  const r = await execa(process.execPath, [ABCD_BIN, ...args], { cwd, env, extendEnv: false, reject: false, timeout: timeoutMs });
  const run = { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr), json: lastJson(String(r.stdout)) };
  // Every --json answer of every test keeps its verb's published contract, or the test fails here.
  assertAnswerContract(args, run.code, run.json);
  return run;
}

/** The --json answer: the last line of stdout, parsed (undefined when it is not JSON). */
export function lastJson(stdout: string): unknown {
  try {
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
  } catch {
    return undefined;
  }
}

/** One remote and two sessions on it, alice and bob, each its own clone and HOME. */
export async function twoSessions(): Promise<{ remote: BareRemote; a: Session; b: Session }> {
  const remote = await makeRemote();
  const [a, b] = await Promise.all([makeSession(remote.url, 'alice'), makeSession(remote.url, 'bob')]);
  return { remote, a, b };
}
