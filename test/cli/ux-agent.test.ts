// announce and shell completion.
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp, isolatedEnv } from '../harness/git-env.js';
import { makeRemote, type BareRemote } from '../harness/remote.js';
import { ABCD_BIN, twoSessions, type Session } from '../harness/session.js';

describe('abcd announce', () => {
  let remote: BareRemote, a: Session, b: Session;
  beforeAll(async () => ({ remote, a, b } = await twoSessions()));
  afterAll(cleanupTemp);

  it("writes the session's own record, shown in everyone's status; a new one replaces it", async () => {
    const r = await a.abcd(['announce', 'blocked', 'login', 'waiting for the API answer', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ state: 'blocked', item: 'login', text: 'waiting for the API answer', ttlMs: 7_200_000 });
    const refs = await remote.refs();
    expect(refs.get(r.json.ref)).toMatch(/^[0-9a-f]{40}$/);
    expect(r.json.ref).toMatch(/^refs\/heads\/abcd\/announce\/alice-[0-9a-f]{10}$/);
    const st = await b.abcd(['status', '--json']);
    expect(st.json.announcements).toEqual([
      expect.objectContaining({ state: 'blocked', item: 'login', text: 'waiting for the API answer', mine: false }),
    ]);
    expect((await b.abcd(['status'])).stdout).toMatch(/alice blocked on login: waiting for the API answer/);
    await a.abcd(['announce', 'working', 'back at it']);
    const again = await b.abcd(['status', '--json']);
    expect(again.json.announcements).toEqual([expect.objectContaining({ state: 'working', item: null, text: 'back at it' })]);
  });

  it("leases on its own record even one it cannot read; a stranger's unreadable one does not stop it", async () => {
    const first = await a.abcd(['announce', 'working', 'first', '--json']);
    expect(first.code, first.stderr).toBe(0);
    // A record this version cannot read, on its own ref and on a stranger's.
    const blob = await execa('git', ['-C', a.dir, 'hash-object', '-w', '--stdin'], { env: a.env, extendEnv: false, input: 'not json' });
    const tree = await execa('git', ['-C', a.dir, 'mktree'], {
      env: a.env,
      extendEnv: false,
      input: `100644 blob ${blob.stdout}\trecord.json\n`,
    });
    const junk = await a.git(['commit-tree', tree.stdout, '-p', (await remote.refs()).get(first.json.ref)!, '-m', 'junk']);
    await a.git(['push', '-q', '--force', 'origin', `${junk}:${first.json.ref}`, `${junk}:refs/heads/abcd/announce/stranger-0000000000`]);
    const again = await a.abcd(['announce', 'working', 'second', '--json']);
    expect(again.code, again.stderr).toBe(0);
    const tip = (await remote.refs()).get(first.json.ref)!;
    expect(await a.git(['rev-parse', `${tip}^`])).toBe(junk);
    const st = await b.abcd(['status', '--json']);
    expect(st.json.announcements.map((x: { text: string }) => x.text)).toContain('second');
  });

  it('refuses control characters and unknown states; an expired announcement leaves status and is pruned', async () => {
    const bad = await b.abcd(['announce', 'working', 'x\u001b[2Jy', '--json']);
    expect(bad.json.refusal).toMatchObject({ code: 'usage', exit: 2 });
    expect((await b.abcd(['announce', 'sleeping', 'zzz'])).code).toBe(2);
    const r = await b.abcd(['announce', 'away', 'lunch', '--ttl', '1s', '--json']);
    expect(r.code).toBe(0);
    // Past expiry plus the takeover delay (set short) it is gone from status and the remote.
    expect((await b.abcd(['settings', 'takeover-delay', '1s'])).code).toBe(0);
    await new Promise((res) => setTimeout(res, 2500));
    const st = await a.abcd(['status', '--json']);
    expect(st.json.announcements.map((x: { text: string }) => x.text)).not.toContain('lunch');
    expect((await remote.refs()).has(r.json.ref)).toBe(false);
  });
});

describe('abcd completion', () => {
  let dir: string;
  beforeAll(async () => {
    dir = (await makeRemote()).dir;
  });
  afterAll(cleanupTemp);

  it("bash completes verbs and each verb's options from the command table", async () => {
    const env = isolatedEnv(dir);
    const script = (await execa(process.execPath, [ABCD_BIN, 'completion', 'bash'], { env, extendEnv: false })).stdout;
    const complete = async (words: string[]) => {
      const sh = `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _abcd; echo "\${COMPREPLY[@]}"`;
      return (await execa('bash', ['-c', sh], { env, extendEnv: false })).stdout.trim().split(/\s+/);
    };
    expect(await complete(['abcd', 'res'])).toEqual(['reserve']);
    expect(await complete(['abcd', 'an'])).toEqual(['announce']);
    expect(await complete(['abcd', 'reserve', 'x', '--re'])).toEqual(expect.arrayContaining(['--reopen', '--remote']));
    expect(await complete(['abcd', 'gate', '--'])).not.toContain('--remote');
  });

  it('zsh gets a #compdef script naming every verb', async () => {
    const r = await execa(process.execPath, [ABCD_BIN, 'completion', 'zsh'], { env: isolatedEnv(dir), extendEnv: false });
    expect(r.stdout.startsWith('#compdef abcd')).toBe(true);
    for (const v of ['reserve', 'land', 'announce', 'status', 'gate']) expect(r.stdout).toContain(`'${v}:`);
  });
});
