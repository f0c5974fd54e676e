// The CLI's own words: --version, per-verb exit codes
// in --help, unknown verbs, missing positionals, and gate's own exit codes kept apart from
// its command's.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp, isolatedEnv, tempDir } from '../harness/git-env.js';
import { startHttpGitServer } from '../harness/http-server.js';
import { makeRemote, type BareRemote } from '../harness/remote.js';
import { ABCD_BIN, makeSession, runAbcd, type Session } from '../harness/session.js';

describe('the command line', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    dir = await tempDir('cli');
    env = isolatedEnv(dir, { ABCD_MACHINE_DIR: join(dir, 'machine'), ABCD_SESSION: 'cli' });
  });
  afterAll(cleanupTemp);
  const abcd = (args: string[]) => runAbcd(dir, args, env);

  it('--version prints the package version', async () => {
    const r = await abcd(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^abcd \d+\.\d+\.\d+/);
  });

  it('an unknown verb says "unknown verb" and lists the verbs (exit 2)', async () => {
    const r = await abcd(['frobnicate', '--json']);
    expect(r.code).toBe(2);
    expect(r.json.refusal.message).toMatch(/^unknown verb "frobnicate"/);
    expect(r.json.refusal.data.verbs).toEqual(expect.arrayContaining(['reserve', 'land', 'status', 'gate']));
  });

  it("a missing positional is named in abcd's words, not the parser's", async () => {
    const r = await abcd(['reserve', '--json']);
    expect(r.code).toBe(2);
    expect(r.json.refusal.message).toContain('reserve needs <item>');
    expect(r.json.refusal.message).not.toMatch(/non-option/);
  });

  it('<verb> --help lists the exit codes and refusal codes that verb can give', async () => {
    const r = await abcd(['reserve', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\s+3\s+.*\bheld\b.*\blanded\b/m);
    expect(r.stdout).toMatch(/^\s+4\s+deadline/m);
    const g = await abcd(['gate', '--help']);
    expect(g.stdout).toContain('abcd gate [options] -- <command>');
    expect(g.stdout).toMatch(/124\s+deadline/);
  });

  it('--remote is offered only by verbs that use the remote', async () => {
    expect((await abcd(['reserve', '--help'])).stdout).toContain('--remote');
    expect((await abcd(['gate', '--help'])).stdout).not.toContain('--remote');
    const r = await abcd(['gate', '--remote', 'x', '--', 'true']);
    expect(r.code).toBe(125);
  });

  it('--wait 0 is accepted; --ttl 0s is too short, not "renew instead"', async () => {
    const g = await abcd(['gate', '--wait', '0', '--', 'true']);
    expect(g.code, g.stderr).toBe(0);
    const t = await abcd(['reserve', 'x', '--ttl', '0s', '--json']);
    expect(t.code).toBe(2);
    expect(t.json.refusal.message).toMatch(/too short/);
    expect(t.json.refusal.message).not.toMatch(/renew/);
  });
});

describe('gate exit codes', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    dir = await tempDir('gate-exit');
    env = isolatedEnv(dir, { ABCD_MACHINE_DIR: join(dir, 'machine'), ABCD_SESSION: 'gate' });
  });
  afterAll(cleanupTemp);
  const abcd = (args: string[]) => runAbcd(dir, args, env);

  it("passes the command's status through and keeps its output off stdout under --json", async () => {
    const r = await abcd(['gate', '--json', '--', 'sh', '-c', 'echo from-the-command; echo to-stderr >&2; exit 4']);
    expect(r.code).toBe(4);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ ok: true, exitCode: 4 });
    expect(r.stderr).toContain('from-the-command');
    expect(r.stderr).toContain('to-stderr');
  });

  it("gate's own refusals use 124 (deadline), 125 (gate failed), 127 (no such command)", async () => {
    const holder = execa(process.execPath, [ABCD_BIN, 'gate', '--slots', '1', '--', 'sleep', '10'], {
      cwd: dir,
      env,
      extendEnv: false,
      reject: false,
    });
    try {
      for (let i = 0; i < 200; i++) {
        const s = await abcd(['gate', '--status', '--json', '--slots', '1']);
        if (s.json?.holders?.length) break;
        await new Promise((res) => setTimeout(res, 100));
      }
      const late = await abcd(['gate', '--slots', '1', '--wait', '1s', '--json', '--', 'true']);
      expect(late.code).toBe(124);
      expect(late.json.refusal).toMatchObject({ code: 'deadline', exit: 124 });
    } finally {
      holder.kill('SIGKILL');
      await holder;
    }
    const missing = await abcd(['gate', '--json', '--', 'no-such-command-for-abcd']);
    expect(missing.code).toBe(127);
    expect(missing.json.refusal).toMatchObject({ code: 'usage', exit: 127 });
    const bad = await abcd(['gate', '--json', '--slots', '0', '--', 'true']);
    expect(bad.code).toBe(125);
    expect(bad.json.refusal).toMatchObject({ code: 'usage', exit: 125 });
  });

  it('a SIGTERM to abcd gate reaches its command, whose status passes through, and frees the slot', async () => {
    const log = join(dir, 'term.log');
    // The command says when it runs, and answers SIGTERM by writing it down and exiting 7.
    const script = `trap 'echo got-term >> ${log}; exit 7' TERM; echo started >> ${log}; while :; do sleep 0.1; done`;
    const gate = execa(process.execPath, [ABCD_BIN, 'gate', '--slots', '1', '--', 'sh', '-c', script], {
      cwd: dir,
      env,
      extendEnv: false,
      reject: false,
    });
    for (let i = 0; i < 600 && !(existsSync(log) && readFileSync(log, 'utf8').includes('started')); i++)
      await new Promise((res) => setTimeout(res, 50));
    gate.kill('SIGTERM');
    const r = await gate;
    expect(readFileSync(log, 'utf8')).toBe('started\ngot-term\n');
    expect(r.exitCode, String(r.stderr)).toBe(7);
    const s = await abcd(['gate', '--status', '--json', '--slots', '1']);
    expect(s.json.holders).toEqual([]);
  });
});

describe('polish', () => {
  let remote: BareRemote;
  let s: Session;
  beforeAll(async () => {
    remote = await makeRemote();
    s = await makeSession(remote.url, 'pol');
  });
  afterAll(cleanupTemp);

  it('control characters from ABCD_SESSION are never echoed (text or JSON)', async () => {
    const hostile = 'x\u001b]0;PWNED\u0007y';
    const text = await s.abcd(['reserve', 'p1'], { env: { ABCD_SESSION: hostile } });
    const json = await s.abcd(['reserve', 'p1', '--json'], { env: { ABCD_SESSION: hostile } });
    for (const r of [text, json]) {
      expect(r.code).toBe(2);
      expect(r.stdout + r.stderr).not.toContain('PWNED');
      expect(r.stdout + r.stderr).not.toContain('\u001b');
    }
    expect(json.json.refusal.message).toMatch(/ABCD_SESSION is not a session id/);
  });

  it('a bad user.email is a usage error naming git config user.email, not a bug', async () => {
    await s.git(['config', 'user.email', `${'a'.repeat(300)}@example.com`]);
    try {
      const r = await s.abcd(['reserve', 'p2', '--json']);
      expect(r.code).toBe(2);
      expect(r.json.refusal.message).toContain('git config user.email');
      expect(r.stderr).not.toMatch(/bug in abcd/);
    } finally {
      await s.git(['config', 'user.email', 'pol@example.com']);
    }
  });

  it('a failing check that printed nothing says so', async () => {
    await s.git(['checkout', '-q', 'main']);
    await mkdir(join(s.dir, '.abcd'), { recursive: true });
    await s.commit('.abcd/config.json', JSON.stringify({ land: { checks: 'exit 3' } }));
    await s.git(['push', '-q', 'origin', 'main']);
    expect((await s.abcd(['reserve', 'quiet'])).code).toBe(0);
    await s.git(['checkout', '-q', '-b', 'work/quiet']);
    await s.commit('q.txt', 'q\n');
    const r = await s.abcd(['land', 'quiet', '--json']);
    expect(r.json.refusal).toMatchObject({ code: 'check-failed', exit: 3 });
    expect(r.json.refusal.message).toContain('It printed nothing');
  });

  it('a remote asking for credentials git does not have says so, not "refused the credentials git offered"', async () => {
    const server = await startHttpGitServer({ root: dirname(remote.dir), auth: { user: 'x-access-token', password: 'right' } });
    try {
      await s.git(['remote', 'set-url', 'origin', server.url('remote.git')]);
      const none = await s.abcd(['status', '--json']);
      expect(none.json.refusal).toMatchObject({ code: 'unsafe-environment', data: { offered: false } });
      expect(none.json.refusal.message).toContain('git had none to offer');
      await s.git(['remote', 'set-url', 'origin', server.url('remote.git').replace('http://', 'http://x-access-token:wrong@')]);
      const wrong = await s.abcd(['status', '--json']);
      expect(wrong.json.refusal.code).toBe('unsafe-environment');
      expect(wrong.json.refusal.message).toContain('refused the credentials git offered');
    } finally {
      await s.git(['remote', 'set-url', 'origin', remote.url]);
      await server.stop();
    }
  });
});
