// A local clone whose Git reads the clone's files, behind a git wrapper first on PATH that
// logs every git process it starts: a test shows an answer came without the command it replaces.
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Git } from '../../src/git/git.js';
import { localClone } from './git-env.js';

export async function countedClone(prefix: string) {
  const c = await localClone(prefix, { name: 'a.txt', text: 'a\n' });
  const bin = join(c.root, 'bin');
  const log = join(c.root, 'git.log');
  await mkdir(bin);
  await writeFile(join(bin, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec /usr/bin/git "$@"\n`);
  await chmod(join(bin, 'git'), 0o755);
  await writeFile(log, '');
  const env = { ...c.env, PATH: `${bin}:${c.env.PATH}` };
  const files = { commonDir: c.gitDir, objectsDir: join(c.gitDir, 'objects'), plainLog: true };
  /** A Git that reads the clone's files first, its processes counted. */
  const counted = () => new Git(c.dir, env, { files });
  /** Without the clone's files: every object through the reader. */
  const readerOnly = () => new Git(c.dir, env);
  /** The git subcommands run since the last call. */
  const ran = async () => {
    const lines = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
    await writeFile(log, '');
    return lines.map((l) => l.split(' ').filter((w, i, a) => !(w.startsWith('-') || a[i - 1] === '-C' || a[i - 1] === '-c'))[0]);
  };
  return { ...c, counted, readerOnly, ran };
}
