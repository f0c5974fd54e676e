// What the everyday verbs load at start-up is their cost on every call an agent makes: Node's
// http stack alone (and the fetch client it brings) is 40-60 ms. The verbs load it only where
// they use it, in a land's check network and a lane's gateway, never on the path without them.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { makeRemote } from '../harness/remote.js';
import { makeSession, type Session } from '../harness/session.js';

/** The Node built-ins one run of the built CLI loaded. */
async function loaded(s: Session, args: string[]): Promise<{ code: number; builtins: string[]; stderr: string }> {
  const dir = await tempDir('modules');
  const hook = join(dir, 'hook.cjs');
  const out = join(dir, 'loaded.json');
  await writeFile(
    hook,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify({
      builtins: process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)),
    })));\n`,
  );
  const r = await s.abcd(args, { env: { NODE_OPTIONS: `--require ${hook}` } });
  const seen = JSON.parse(await readFile(out, 'utf8')) as { builtins: string[] };
  return { code: r.code, builtins: seen.builtins, stderr: r.stderr };
}

const HTTP = ['http', '_http_client', 'internal/deps/undici/undici', 'http2', 'tls'];

describe('start-up of the everyday verbs', () => {
  afterAll(cleanupTemp);

  it('status, reserve and a land with no checks load no http stack', async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'lean');
    const status = await loaded(s, ['status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    const reserve = await loaded(s, ['reserve', 'lean-item', '--json']);
    expect(reserve.code, reserve.stderr).toBe(0);
    await s.git(['checkout', '-q', '-b', 'work/lean-item']);
    await s.commit('lean.txt', 'lean\n');
    const land = await loaded(s, ['land', 'lean-item', '--json']);
    expect(land.code, land.stderr).toBe(0);
    // It landed: main on the remote is the work.
    expect((await remote.refs()).get('refs/heads/main')).toBe(await s.git(['rev-parse', 'HEAD']));
    for (const [verb, run] of [
      ['status', status],
      ['reserve', reserve],
      ['land', land],
    ] as const) {
      // The hook saw the run: the child_process abcd runs git with is there.
      expect(run.builtins, verb).toContain('child_process');
      expect(
        run.builtins.filter((m) => HTTP.includes(m)),
        verb,
      ).toEqual([]);
    }
  });
});
