import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { configOptions, git, isolatedEnv, QUIET_CONFIG, tempDir } from './git-env.js';

export interface BareRemote {
  /** Path of the bare repository. */
  dir: string;
  /** file:// URL sessions clone from. */
  url: string;
  /** The remote's refs: ref → oid. */
  refs(): Promise<Map<string, string>>;
}

/** A temporary bare remote whose main branch has one commit. */
export async function makeRemote(): Promise<BareRemote> {
  const root = await tempDir('remote');
  const env = isolatedEnv(root);
  const dir = join(root, 'remote.git');
  await git(root, ['init', '--bare', '-q', '-b', 'main', dir], env);
  await git(dir, ['config', 'http.receivepack', 'true'], env);
  const seed = join(root, 'seed');
  await git(root, ['init', '-q', '-b', 'main', seed], env);
  await writeFile(join(seed, 'README.md'), '# project\n');
  await git(seed, ['add', '.'], env);
  // The seed only makes main's first commit: the quiet config for that one command.
  await git(seed, [...configOptions(QUIET_CONFIG), 'commit', '-q', '-m', 'initial'], env);
  await git(seed, ['push', '-q', dir, 'main'], env);
  return {
    dir,
    url: `file://${dir}`,
    refs: () => lsRemote(dir, env),
  };
}

export async function lsRemote(urlOrDir: string, env: Record<string, string>): Promise<Map<string, string>> {
  const out = await git(process.cwd(), ['ls-remote', urlOrDir], env);
  const refs = new Map<string, string>();
  for (const line of out.split('\n').filter(Boolean)) {
    const [oid, ref] = line.split('\t');
    if (oid && ref) refs.set(ref, oid);
  }
  return refs;
}

/** Writes a record commit straight into a bare remote, bypassing abcd (corrupt or future records). */
export async function writeRawRecord(remoteDir: string, ref: string, content: string | Buffer): Promise<string> {
  const env = isolatedEnv(remoteDir);
  const { execa } = await import('execa');
  const blob = await execa('git', ['-C', remoteDir, 'hash-object', '-w', '--stdin'], { env, extendEnv: false, input: content });
  const tree = await execa('git', ['-C', remoteDir, 'mktree'], {
    env,
    extendEnv: false,
    input: `100644 blob ${blob.stdout.trim()}\trecord.json\n`,
  });
  const commit = await git(remoteDir, ['commit-tree', tree.stdout.trim(), '-m', 'raw record'], env);
  await git(remoteDir, ['update-ref', ref, commit], env);
  return commit;
}

/**
 * A remote whose main carries `.abcd/config.json` with `config`, committed by the owner. Also
 * answers a scratch folder of the test's own (for logs and the machine folder) and its env.
 */
export async function configuredRemote(
  name: string,
  config: unknown,
): Promise<{ remote: BareRemote; root: string; env: Record<string, string> }> {
  const remote = await makeRemote();
  const root = await tempDir(name);
  const env = isolatedEnv(root);
  const seed = join(root, 'seed');
  const owner = configOptions([
    ['commit.gpgsign', 'false'],
    ['user.email', 'owner@example.com'],
  ]);
  await git(root, ['clone', '-q', ...owner, remote.url, seed], env);
  await mkdir(join(seed, '.abcd'));
  await writeFile(join(seed, '.abcd/config.json'), JSON.stringify(config));
  await git(seed, ['add', '.'], env);
  await git(seed, ['commit', '-q', '-m', 'configure abcd'], env);
  await git(seed, ['push', '-q', 'origin', 'main'], env);
  return { remote, root, env };
}
