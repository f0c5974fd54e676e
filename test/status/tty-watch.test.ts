// abcd status --watch in a real terminal (tmux, 100x24): drawn on the alternate screen so no
// redraw lands in the scrollback, and it lives through the remote going away for a while,
// keeping the last good view with a line saying what failed, then showing the new state.
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { writeRawRecord, type BareRemote } from '../harness/remote.js';
import { ABCD_BIN, twoSessions, type Session } from '../harness/session.js';

const quote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;
// More claims than the pane has rows: a view drawn in full would scroll.
const HELD = 30;

describe('status --watch in tmux', () => {
  let remote: BareRemote, a: Session, b: Session;
  let socket: string;
  const tmux = (args: string[]) => execa('tmux', ['-S', socket, ...args], { reject: false });
  const pane = async () => (await tmux(['capture-pane', '-p', '-t', 'w'])).stdout;
  const format = async (f: string) => (await tmux(['display-message', '-p', '-t', 'w', f])).stdout.trim();
  const until = async (ok: () => Promise<boolean>, what: string, tries = 300) => {
    for (let i = 0; i < tries; i++) {
      if (await ok()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${what}:\n${await pane()}`);
  };

  beforeAll(async () => {
    ({ remote, a, b } = await twoSessions());
    for (let i = 1; i <= HELD; i++)
      await writeRawRecord(
        remote.dir,
        `refs/heads/abcd/claims/local/item/claim-${i}`,
        JSON.stringify({
          abcd: 'claim',
          v: 1,
          item: `local:item:claim-${i}`,
          state: 'held',
          holder: { person: 'carol@example.com', host: 'box', session: 's1' },
          gen: 1,
          at: Date.now(),
          ttl: 3_600_000,
        }),
      );
    const dir = await tempDir('tmux');
    socket = join(dir, 'tmux.sock');
    const script = join(dir, 'watch.sh');
    const env = Object.entries(b.env).map(([k, v]) => `export ${k}=${quote(v)}`);
    await writeFile(
      script,
      [...env, `cd ${quote(b.dir)}`, `exec ${quote(process.execPath)} ${quote(ABCD_BIN)} status --watch 1s`].join('\n'),
    );
    const r = await tmux(['-f', '/dev/null', 'new-session', '-d', '-s', 'w', '-x', '100', '-y', '24', `bash ${quote(script)}`]);
    expect(r.exitCode, r.stderr).toBe(0);
    await tmux(['set-option', '-t', 'w', 'remain-on-exit', 'on']);
  }, 120_000);
  afterAll(async () => {
    await tmux(['kill-server']);
    await cleanupTemp();
  });

  it('redraws leave the scrollback as it was; a remote away for 5 s is outlived, and the new state shown after', async () => {
    await until(async () => /last read \d\d:\d\d:\d\dZ/.test(await pane()), 'the first read');
    const history = await format('#{history_size}');
    // Several redraws, some of them of changed records.
    for (const item of ['aaa-1', 'aaa-2']) {
      expect((await a.abcd(['reserve', item])).code).toBe(0);
      await until(async () => (await pane()).includes(item), item);
    }
    expect(await format('#{history_size}')).toBe(history);
    expect((await pane()).split('\n').length).toBeLessThanOrEqual(24);
    // The unprotected warning once, on one line just above the footer, not in the body.
    const shown = (await pane()).trimEnd().split('\n');
    expect(shown.filter((l) => l.includes('unprotected'))).toHaveLength(1);
    expect(shown.at(-2)).toMatch(/^settings are unprotected: .{0,80}$/);
    expect(shown.at(-1)).toMatch(/^last read /);

    await rename(remote.dir, `${remote.dir}.away`);
    try {
      await until(async () => /read failed at \d\d:\d\d:\d\dZ, retrying in \d/.test(await pane()), 'the failure line');
      expect(await pane()).toContain('aaa-2'); // the last good view stays
      await new Promise((r) => setTimeout(r, 5000));
      expect(await format('#{pane_dead}')).toBe('0');
    } finally {
      await rename(`${remote.dir}.away`, remote.dir);
    }
    expect((await a.abcd(['reserve', 'aaa-3'])).code).toBe(0);
    await until(async () => (await pane()).includes('aaa-3'), 'the state after the outage', 600);
    expect(await pane()).toMatch(/last read \d\d:\d\d:\d\dZ/);
    expect(await format('#{pane_dead}')).toBe('0');
    expect(await format('#{history_size}')).toBe(history);
  }, 120_000);

  it('--watch-exit <N> ends the watch after N failed reads in a row, with the refusal of the last', async () => {
    await rename(remote.dir, `${remote.dir}.away`);
    try {
      const r = await b.abcd(['status', '--watch', '500ms', '--watch-exit', '2', '--json'], { timeoutMs: 30_000 });
      const lines = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { ok: boolean; refusal?: { code: string; exit: number }; failures?: number });
      // The first failure is reported and retried; the second ends it.
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatchObject({ ok: false, failures: 1 });
      expect(lines[1]!.ok).toBe(false);
      expect(r.code).toBe(lines[1]!.refusal!.exit);
      expect(r.code).toBeGreaterThanOrEqual(3);
    } finally {
      await rename(`${remote.dir}.away`, remote.dir);
    }
    expect((await b.abcd(['status', '--watch-exit', '2'])).code).toBe(2);
  });
});
