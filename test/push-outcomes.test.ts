// What abcd says when the remote refuses or does not finish a push: never "fenced" for a
// refusal that is not a fence, never "nothing changed" for an outcome it cannot know.
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from './harness/git-env.js';
import { makeRemote, type BareRemote } from './harness/remote.js';
import { makeSession } from './harness/session.js';

async function hook(remote: BareRemote, name: string, body: string): Promise<void> {
  const path = join(remote.dir, 'hooks', name);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
}

describe('push outcomes', () => {
  afterAll(cleanupTemp);

  it('a hook that declines the push is a conflict (exit 3) naming git\'s reason, and nothing changes', async () => {
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

  it('a push cut off by its timeout is exit 8 with outcome unknown, and the whole git process group ends at the timeout', async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'ivan');
    expect((await s.abcd(['reserve', 'slow'])).code).toBe(0);
    await hook(remote, 'pre-receive', 'sleep 6');
    const t0 = Date.now();
    const r = await s.abcd(['renew', 'slow', '--json'], { env: { ABCD_NETWORK_TIMEOUT: '1s' } });
    const took = Date.now() - t0;
    expect(r.code, r.stdout + r.stderr).toBe(8);
    expect(r.json.refusal).toMatchObject({ code: 'remote-unavailable', data: { outcome: 'unknown' } });
    // git, receive-pack and the hook were killed together: not held until the hook's 6 s.
    expect(took).toBeLessThan(5000);
  });

  it('a rebased work branch replaces what this session pushed before (leased on the claim\'s head)', async () => {
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
