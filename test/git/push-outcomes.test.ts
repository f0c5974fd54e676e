// What abcd says when the remote refuses or does not finish a push: never "fenced" for a
// refusal that is not a fence, never "nothing changed" for an outcome it cannot know.
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, git, isolatedEnv } from '../harness/git-env.js';
import { makeRemote, type BareRemote } from '../harness/remote.js';
import { makeSession } from '../harness/session.js';
import { startHttpGitServer } from '../harness/http-server.js';

async function hook(remote: BareRemote, name: string, body: string): Promise<void> {
  const path = join(remote.dir, 'hooks', name);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
}

describe('push outcomes', () => {
  afterAll(cleanupTemp);

  it("a hook that declines the push is a conflict (exit 3) naming git's reason, and nothing changes", async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'hana');
    await hook(remote, 'pre-receive', 'echo "protected by policy" >&2; exit 1');
    const before = await remote.refs();
    const r = await s.abcd(['reserve', 'declined', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.json.refusal.code).toBe('conflict');
    expect(JSON.stringify(r.json.refusal.data.rejected)).toContain('pre-receive hook declined');
    expect(await remote.refs()).toEqual(before);
  });

  it('a push cut off by its timeout is exit 8, the remote is read again, and the whole git process group ends at the timeout', async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'ivan');
    expect((await s.abcd(['reserve', 'slow'])).code).toBe(0);
    const before = await remote.refs();
    // The hook names its process, then outlives any test: only a kill ends it.
    const hookPid = join(remote.dir, 'hook.pid');
    await hook(remote, 'pre-receive', `echo $$ > '${hookPid}'; exec sleep 300`);
    const r = await s.abcd(['renew', 'slow', '--json'], { env: { ABCD_NETWORK_TIMEOUT: '1s' } });
    expect(r.code, r.stdout + r.stderr).toBe(8);
    // receive-pack died with git: the re-read saw the refs as before, and says so.
    expect(r.json.refusal).toMatchObject({ code: 'remote-unavailable', data: { outcome: 'unchanged' } });
    expect(r.json.refusal.message).toMatch(/read the remote again/);
    expect(await remote.refs()).toEqual(before);
    // git, receive-pack and the hook were killed together: the hook's sleep is gone (a kill -0
    // on a zombie still succeeds, so allow the moment it takes to be reaped).
    const pid = Number((await readFile(hookPid, 'utf8')).trim());
    const end = Date.now() + 10_000;
    while (isAlive(pid) && Date.now() < end) await new Promise((res) => setTimeout(res, 100));
    expect(isAlive(pid), `the hook's process ${pid} outlived the push`).toBe(false);
  });

  it('a push that landed but whose answer never finished is a success once the re-read sees it', async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'mira');
    expect((await s.abcd(['reserve', 'landed-late'])).code).toBe(0);
    // The refs are updated before post-receive runs; git then waits for the hook and is cut off.
    await hook(remote, 'post-receive', 'sleep 6');
    const r = await s.abcd(['renew', 'landed-late', '--json'], { env: { ABCD_NETWORK_TIMEOUT: '1s' } });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect((await remote.refs()).get('refs/heads/abcd/claims/local/item/landed-late')).toBe(r.json.claimTip);
  });

  it('a server that dies as soon as it has received the push body never gets "nothing changed" when the claim was written', async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'lena');
    const seen: Array<{ code: number; outcome?: string; landed: boolean }> = [];
    // On the old main, 9 of 19 such pushes that landed (server dying 20 ms after the body) were reported unchanged:
    // curl's reconnect after the dead connection printed "Failed to connect". Each trial kills its own server.
    for (let i = 0; i < 6; i++) {
      const server = await startHttpGitServer({ root: dirname(remote.dir), dieAfterReceivePackMs: 0 });
      await s.git(['remote', 'set-url', 'origin', server.url(basename(remote.dir))]);
      const r = await s.abcd(['reserve', `dying-${i}`, '--json']);
      await server.stop();
      // http-backend outlives the server and may still be applying the push: let it finish.
      const ref = `refs/heads/abcd/claims/local/item/dying-${i}`;
      let landed = false;
      for (let t = 0; t < 50 && !landed; t++) {
        landed = (await remote.refs()).has(ref);
        if (!landed) await new Promise((res) => setTimeout(res, 100));
      }
      seen.push({ code: r.code, outcome: r.json?.refusal?.data?.outcome, landed });
      // Keep the person under the reservation cap for the next trial.
      if (landed) await git(remote.dir, ['update-ref', '-d', ref], isolatedEnv(remote.dir));
    }
    const text = JSON.stringify(seen);
    // Every answer is true: success only when it landed, "unchanged" only when it did not.
    for (const t of seen) {
      expect([0, 8], text).toContain(t.code);
      if (t.code === 0) expect(t.landed, text).toBe(true);
      if (t.outcome === 'unchanged') expect(t.landed, text).toBe(false);
    }
    // The trials exercised what they are for: pushes that landed without an answer.
    expect(seen.filter((t) => t.landed && t.code === 8).length, text).toBeGreaterThan(0);
  });

  it('a remote whose server cannot write the repository says so (exit 8, outcome unchanged) for reserve, push and settings', async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'olga');
    // Set up over file:// while the repository is writable: a held claim with a work branch.
    expect((await s.abcd(['reserve', 'ro-work'])).code).toBe(0);
    await s.git(['checkout', '-q', '-b', 'work/ro-work']);
    await s.commit('ro.txt', 'ro\n');
    // Then serve it by a git that cannot write it. Root writes anything, so as root the backend
    // runs as nobody (the server's own user on many hosts); otherwise read-only modes suffice.
    const asRoot = process.getuid?.() === 0;
    await chmod(dirname(remote.dir), 0o755);
    if (!asRoot) await execa('chmod', ['-R', 'a-w', join(remote.dir, 'objects'), join(remote.dir, 'refs')]);
    const server = await startHttpGitServer({ root: dirname(remote.dir), ...(asRoot ? { backendUser: { uid: 65534, gid: 65534 } } : {}) });
    await s.git(['remote', 'set-url', 'origin', server.url(basename(remote.dir))]);
    const before = await remote.refs();
    try {
      for (const args of [
        ['reserve', 'ro-new'],
        ['push', 'ro-work'],
        ['settings', 'reservation-cap', '3'],
      ]) {
        const r = await s.abcd([...args, '--json']);
        const what = `${args.join(' ')}: ${r.stdout}${r.stderr}`;
        expect(r.code, what).toBe(8);
        expect(r.json.refusal, what).toMatchObject({
          code: 'remote-unavailable',
          data: { outcome: 'unchanged', reason: 'remote-cannot-store' },
        });
        expect(r.json.refusal.message, what).toMatch(/cannot store what was pushed to it: remote unpack failed/);
        expect(r.json.refusal.message, what).not.toMatch(/changed while writing/);
      }
      expect(await remote.refs()).toEqual(before);
    } finally {
      await server.stop();
      if (!asRoot) await execa('chmod', ['-R', 'u+w', remote.dir]);
    }
  });

  it("a rebased work branch replaces what this session pushed before (leased on the claim's head)", async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'jo');
    expect((await s.abcd(['reserve', 'rebased'])).code).toBe(0);
    await s.git(['checkout', '-q', '-b', 'work/rebased']);
    await s.commit('a.txt', 'one\n');
    expect((await s.abcd(['push', 'rebased'])).code).toBe(0);
    await s.git(['commit', '-q', '--amend', '-m', 'reworded']);
    const amended = await s.git(['rev-parse', 'HEAD']);
    const r = await s.abcd(['push', 'rebased', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect((await remote.refs()).get('refs/heads/work/rebased')).toBe(amended);
  });

  it('a land whose push to main is refused by the remote is a conflict (exit 3), not three re-tests', async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'kim');
    await hook(remote, 'update', '[ "$1" = refs/heads/main ] && { echo "main is protected" >&2; exit 1; }; exit 0');
    expect((await s.abcd(['reserve', 'guarded'])).code).toBe(0);
    await s.git(['checkout', '-q', '-b', 'work/guarded']);
    await s.commit('g.txt', 'g\n');
    const before = (await remote.refs()).get('refs/heads/main');
    const r = await s.abcd(['land', 'guarded', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.json.refusal.code).toBe('conflict');
    expect(JSON.stringify(r.json.refusal.data.rejected)).toContain('refs/heads/main');
    expect((await remote.refs()).get('refs/heads/main')).toBe(before);
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
