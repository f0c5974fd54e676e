// Every land check is untrusted code: it runs what the commit under test says (an agent's test
// script, or under speculation the script of an entry ahead). In its sandbox it reads none of
// the person's secrets (their ssh key, abcd's config, a variable of their environment) and
// writes nothing outside its worktree, yet it runs, sees the commit under test through git and
// writes in its worktree.
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, git, isolatedEnv, tempDir } from '../harness/git-env.js';
import { laneRun, laneSession, remoteWithItems } from '../harness/lanes.js';
import { makeRemote } from '../harness/remote.js';
import { makeSession, type Session } from '../harness/session.js';

const CANARY = 'canary-7d41e2';

interface Secrets {
  ssh: string;
  config: string;
  outside: string;
}

/** Plants the person's secrets: an ssh key in their HOME, abcd's App key in its config folder. */
async function plantSecrets(home: string, configDir: string): Promise<Secrets> {
  const ssh = join(home, '.ssh/id_ed25519');
  await mkdir(join(home, '.ssh'), { recursive: true });
  await writeFile(ssh, `${CANARY}-ssh\n`);
  await mkdir(configDir, { recursive: true });
  await writeFile(join(configDir, 'app.json'), `{"key":"${CANARY}-app-key"}\n`);
  const outside = await tempDir('outside');
  return { ssh, config: configDir, outside };
}

/**
 * A test script an attacker writes: it exits with one bit per secret it could read or place it
 * could write outside its worktree (so a check that reads nothing passes), and fails when it
 * cannot do what any honest check does (see the commit under test, write in its worktree).
 */
function hostileScript(s: Secrets, only?: string): string {
  return [
    only ? `[ "$ABCD_LAND_ITEM" = "${only}" ] || { sleep 15; exit 0; }` : '',
    'r=0',
    `grep -q ${CANARY} "${s.ssh}" 2>/dev/null && r=$((r|1))`,
    `env | grep -q ${CANARY} && r=$((r|2))`,
    `cat "${s.config}"/* 2>/dev/null | grep -q ${CANARY} && r=$((r|4))`,
    `{ cat "${s.ssh}" "${s.config}"/*; env; } > "${s.outside}/leak" 2>/dev/null && r=$((r|8))`,
    '[ "$(git rev-parse HEAD)" = "$ABCD_LAND_TIP" ] || r=$((r|16))',
    'echo ok > written-inside.txt || r=$((r|32))',
    'echo "hostile check: $r"',
    'exit $r',
    '',
  ].join('\n');
}

describe('land checks run sandboxed', () => {
  afterAll(cleanupTemp);

  it("an agent's rewritten test script, run by the lane's land check, reads no secret and writes nothing outside", async () => {
    const remote = await remoteWithItems([{ slug: 'evil' }], { land: { checks: 'npm test --silent' } });
    const configDir = await tempDir('abcd-config');
    const s = await laneSession(remote, 'victim', { SECRET_THING: `${CANARY}-variable`, ABCD_CONFIG_DIR: configDir });
    const secrets = await plantSecrets(s.env.HOME!, configDir);
    const script = Buffer.from(hostileScript(secrets)).toString('base64');
    const agent =
      `echo ${script} | base64 -d > check.sh && printf '{"scripts":{"test":"sh check.sh"}}' > package.json && ` +
      'git add -A && git commit -qm "tests, rewritten"';
    const r = await s.abcd(['drain', '--json', '--sandbox', 'bwrap', '--agent', agent], { timeoutMs: 120_000 });
    // It read nothing, so it passed and the work landed; outside its worktree nothing was written.
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(laneRun(r).record.cycles).toMatchObject([{ item: 'evil', outcome: 'landed' }]);
    expect(await readdir(secrets.outside)).toEqual([]);
  }, 150_000);

  it('a speculative land whose entry ahead carries a hostile check script: the check runs sandboxed, the canaries stay unread', async () => {
    const remote = await makeRemote();
    const root = await tempDir('spec-hostile');
    const env = isolatedEnv(root);
    const seed = join(root, 'seed');
    await git(root, ['clone', '-q', remote.url, seed], env);
    await git(seed, ['config', 'commit.gpgsign', 'false'], env);
    await mkdir(join(seed, '.abcd'));
    await writeFile(join(seed, '.abcd/config.json'), JSON.stringify({ land: { checks: 'sh check.sh', speculate: 2 } }));
    await writeFile(join(seed, 'check.sh'), 'exit 0\n');
    await git(seed, ['add', '.'], env);
    await git(seed, ['commit', '-q', '-m', 'checks'], env);
    await git(seed, ['push', '-q', 'origin', 'main'], env);
    const machine = join(root, 'machine');
    const configDir = await tempDir('abcd-config-b');
    const session = (name: string, extra: Record<string, string> = {}) =>
      makeSession(remote.url, name, { env: { ABCD_MACHINE_DIR: machine, ABCD_GATE_SLOTS: '4', ...extra } });
    const [ahead, behind]: [Session, Session] = await Promise.all([
      session('ahead'),
      session('behind', { SECRET_THING: `${CANARY}-variable`, ABCD_CONFIG_DIR: configDir }),
    ]);
    const secrets = await plantSecrets(behind.env.HOME!, configDir);
    // The entry ahead's check holds its own land in the queue and attacks the one tested on top of it.
    for (const [s, item, file, content] of [
      [ahead, 'first', 'check.sh', hostileScript(secrets, 'second')],
      [behind, 'second', 'second.txt', 'second\n'],
    ] as const) {
      expect((await s.abcd(['reserve', item])).code).toBe(0);
      await s.git(['checkout', '-q', '-b', `work/${item}`]);
      await s.commit(file, content, `${item}: ${file}`);
    }
    const first = ahead.abcd(['land', 'first', '--json', '--wait', '3m'], { timeoutMs: 200_000 });
    const entry = 'refs/heads/abcd/queue/local/item/first';
    for (let k = 0; k < 1200 && !(await remote.refs()).has(entry); k++) await new Promise((res) => setTimeout(res, 50));
    const second = await behind.abcd(['land', 'second', '--json', '--wait', '3m'], { timeoutMs: 200_000 });
    const landedFirst = await first;
    expect(landedFirst.code, landedFirst.stdout + landedFirst.stderr).toBe(0);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    // Tested on top of the entry ahead, with that entry's script; it read nothing and wrote nothing outside.
    expect(second.json).toMatchObject({ speculation: { position: 1 } });
    expect(await readdir(secrets.outside)).toEqual([]);
  }, 240_000);

  it("without bubblewrap a lane refuses before claiming, land.sandbox none is refused unattended, and a person's own land runs alone and says so", async () => {
    const remote = await remoteWithItems([{ slug: 'plain' }], { land: { checks: 'test -f .abcd/items/plain.md' } });
    const s = await laneSession(remote, 'laptop');
    // Every program of the system but bubblewrap.
    const bin = await tempDir('no-bwrap');
    for (const d of ['/usr/local/bin', '/usr/bin', '/bin'])
      for (const f of await readdir(d).catch(() => [])) if (f !== 'bwrap') await symlink(join(d, f), join(bin, f)).catch(() => undefined);
    const noBwrap = { env: { PATH: bin } };
    const lane = await s.abcd(['drain', '--json', '--sandbox', 'none', '--agent', 'echo x > x.txt'], noBwrap);
    expect(lane.code, lane.stdout + lane.stderr).toBe(7);
    expect(lane.json.refusal).toMatchObject({ code: 'unsafe-environment', data: { reason: 'no-check-sandbox' } });
    expect(lane.json.refusal.message).toMatch(/bwrap is not installed.*land\.sandbox/s);
    expect([...(await remote.refs()).keys()].filter((x) => x.startsWith('refs/heads/abcd/'))).toEqual([]);

    expect((await s.abcd(['reserve', 'plain'])).code).toBe(0);
    await s.git(['checkout', '-q', '-b', 'work/plain']);
    await s.commit('plain.txt', 'mine\n');
    const own = await s.abcd(['land', 'plain', '--json'], noBwrap);
    expect(own.code, own.stdout + own.stderr).toBe(0);
    expect(own.json).toMatchObject({ checksSandbox: 'none', warning: expect.stringMatching(/not installed.*unsandboxed/) });

    await s.git(['checkout', '-q', 'main']);
    await s.git(['pull', '-q', 'origin', 'main']);
    await s.commit('.abcd/config.json', JSON.stringify({ land: { checks: 'true', sandbox: 'none' } }), 'checks as the person');
    await s.commit('.abcd/items/next.md', '---\ntitle: next\nstatus: ready\n---\nnext\n', 'next item');
    await s.git(['push', '-q', 'origin', 'main']);
    const unattended = await s.abcd(['drain', '--json', '--agent', 'echo x > x.txt']);
    expect(unattended.code, unattended.stdout + unattended.stderr).toBe(7);
    expect(unattended.json.refusal).toMatchObject({ code: 'unsafe-environment', data: { reason: 'check-unsandboxed-in-lane' } });
  }, 120_000);
});
