// The live wait line: on a terminal a waiting verb shows one line, redrawn
// in place, saying what it waits on and the time left; nothing on a pipe or with --json.
// A real pseudo-terminal: script(1), sized with stty (a 0-row terminal shows nothing).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp, isolatedEnv, tempDir } from '../harness/git-env.js';
import { makeRemote } from '../harness/remote.js';
import { ABCD_BIN, makeSession, type Session } from '../harness/session.js';
import { onTty } from '../harness/tty.js';

describe('wait line', () => {
  let a: Session;
  let b: Session;
  beforeAll(async () => {
    const remote = await makeRemote();
    [a, b] = await Promise.all([makeSession(remote.url, 'alice'), makeSession(remote.url, 'bob')]);
    expect((await a.abcd(['reserve', 'busy', '--ttl', '1h'])).code).toBe(0);
  });
  afterAll(cleanupTemp);

  it('reserve --wait on a terminal redraws one line naming the holder and the time left, then removes it', async () => {
    const r = await onTty(b.dir, b.env, ['reserve', 'busy', '--wait', '3s']);
    expect(r.code).toBe(4);
    const lines = r.screen.match(/waiting for busy, held by alice@example\.com\/[^ ]+\/alice \(expires in [^)]+\), [\d.]+m?s left/g) ?? [];
    expect(lines.length).toBeGreaterThanOrEqual(2);
    // Redrawn in place: each new line first erases the previous one.
    expect(r.screen).toContain('\u001b[1A\u001b[2K');
    expect(r.screen).toContain('the --wait deadline of 3s passed');
  });

  it('nothing with --json on a terminal, nothing on a pipe', async () => {
    const json = await onTty(b.dir, b.env, ['reserve', 'busy', '--wait', '2s', '--json']);
    expect(json.code).toBe(4);
    expect(json.screen).not.toContain('waiting for');
    expect(json.screen).not.toContain('\u001b[');
    const piped = await b.abcd(['reserve', 'busy', '--wait', '2s']);
    expect(piped.code).toBe(4);
    expect(piped.stderr + piped.stdout).not.toContain('waiting for busy,');
  });

  it("gate's wait for a slot shows its ticket and the time left", async () => {
    const dir = await tempDir('tty-gate');
    const env = isolatedEnv(dir, { ABCD_MACHINE_DIR: join(dir, 'machine') });
    const holder = execa(process.execPath, [ABCD_BIN, 'gate', '--slots', '1', '--', 'sleep', '8'], {
      cwd: dir,
      env,
      extendEnv: false,
      reject: false,
    });
    try {
      for (let i = 0; i < 200; i++) {
        const s = await execa(process.execPath, [ABCD_BIN, 'gate', '--status', '--json', '--slots', '1'], {
          cwd: dir,
          env,
          extendEnv: false,
          reject: false,
        });
        if (JSON.parse(s.stdout).holders.length) break;
        await new Promise((res) => setTimeout(res, 100));
      }
      const r = await onTty(dir, env, ['gate', '--slots', '1', '--wait', '2s', '--', 'true']);
      expect(r.code).toBe(124);
      expect(r.screen).toMatch(/waiting for a load-gate slot for true \(ticket \d+, 1 ahead\), \d+s left/);
    } finally {
      holder.kill('SIGKILL');
      await holder;
    }
  });

  it("land's wait in the queue names the entry ahead and the time left", async () => {
    const remote = await makeRemote();
    const [slow, quick] = await Promise.all([makeSession(remote.url, 'slow'), makeSession(remote.url, 'quick')]);
    await mkdir(join(slow.dir, '.abcd'), { recursive: true });
    await slow.commit('.abcd/config.json', JSON.stringify({ land: { checks: 'sleep "${CHECK_SLEEP:-0}"', env: ['CHECK_SLEEP'] } }));
    await slow.git(['push', '-q', 'origin', 'main']);
    for (const [s, item] of [
      [slow, 'slow-item'],
      [quick, 'quick-item'],
    ] as const) {
      expect((await s.abcd(['reserve', item])).code).toBe(0);
      await s.git(['fetch', '-q', 'origin']);
      await s.git(['checkout', '-q', '-b', `work/${item}`, 'origin/main']);
      await s.commit(`${item}.txt`, `${item}\n`);
    }
    const first = slow.abcd(['land', 'slow-item', '--json'], { env: { CHECK_SLEEP: '8' } });
    // The slow land must be in the queue before the quick one enqueues.
    for (let i = 0; i < 300; i++) {
      if ([...(await remote.refs()).keys()].some((k) => k.endsWith('/queue/local/item/slow-item'))) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    const r = await onTty(quick.dir, quick.env, ['land', 'quick-item', '--wait', '60s']);
    expect(r.code, r.screen).toBe(0);
    expect(r.screen).toMatch(/waiting behind slow-item \(1 ahead\) to land quick-item, [\d.]+m?s? left/);
    expect((await first).code).toBe(0);
  });
});
