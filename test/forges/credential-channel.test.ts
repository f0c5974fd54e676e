import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { credentialConfigEnv } from '../../src/forges/github/credentials/channel-config.js';
import { openCredentialChannel, withCredential, type CredentialChannelOptions } from '../../src/forges/github/credentials/channel.js';
import { GitRunner } from '../../src/git/runner.js';
import { cleanupTemp, git, isolatedEnv, QUIET_CONFIG, tempDir } from '../harness/git-env.js';
import { startHttpGitServer, type HttpGitServer } from '../harness/http-server.js';
import { ABCD_BIN } from '../harness/session.js';

// Generous for a loopback push that the server holds ~1.5 s.
const PUSH_TIMEOUT_MS = 30_000;
const USER = 'x-access-token';

let token: string;
let home: string;
let work: string;
let env: Record<string, string>;
let server: HttpGitServer;
let workGit: GitRunner;

beforeEach(async () => {
  token = `tok_${randomBytes(24).toString('hex')}`;
  const root = await tempDir('cred-remotes');
  home = await tempDir('cred-home');
  env = isolatedEnv(home);
  for (const name of ['p.git', 'q.git']) {
    await git(root, ['init', '-q', '--bare', '-b', 'main', name], env);
    await git(join(root, name), ['config', 'http.receivepack', 'true'], env);
  }
  work = join(home, 'work');
  await git(home, ['init', '-q', '-b', 'main', work], env);
  for (const [k, v] of QUIET_CONFIG) await git(work, ['config', k, v], env);
  await git(work, ['commit', '-q', '--allow-empty', '-m', 'first'], env);
  server = await startHttpGitServer({ root, auth: { user: USER, password: token } });
  await git(work, ['remote', 'add', 'origin', server.url('p.git')], env);
  workGit = new GitRunner(work, env);
});

afterEach(async () => {
  await server.stop();
  await cleanupTemp();
});

function channelOptions(extra: Partial<CredentialChannelOptions> = {}): CredentialChannelOptions {
  return {
    token,
    launcher: { node: process.execPath, script: ABCD_BIN },
    host: `127.0.0.1:${server.port}`,
    baseEnv: env,
    dir: tmpdir(),
    ...extra,
  };
}

const pushMain = (e: Record<string, string> = {}) => workGit.run(['push', '-q', 'origin', 'main'], { env: e, timeoutMs: PUSH_TIMEOUT_MS });

describe('credential channel', () => {
  it('lets a push authenticate with the token, and only while it is open', async () => {
    const without = await pushMain();
    expect(without.exitCode).not.toBe(0);

    const channel = await openCredentialChannel(channelOptions());
    const socketDir = channel.env.GIT_CONFIG_VALUE_1!.match(/--socket '([^']+)\/s'/)![1]!;
    const pushed = await pushMain(channel.env);
    expect(pushed.stderr).toBe('');
    expect(pushed.exitCode).toBe(0);
    expect(channel.answered).toBe(1);
    await channel.close();
    expect(existsSync(socketDir)).toBe(false);

    const head = await git(work, ['rev-parse', 'HEAD'], env);
    expect(await git(work, ['ls-remote', `http://${USER}:${token}@127.0.0.1:${server.port}/p.git`, 'main'], env)).toContain(head);
    // After close the old helper line finds no socket: git fails auth, nothing prompts.
    await git(work, ['commit', '-q', '--allow-empty', '-m', 'second'], env);
    expect((await pushMain(channel.env)).exitCode).not.toBe(0);
  });

  it('answers every get of one git call (a push to two push URLs), and no other host', async () => {
    await git(work, ['remote', 'set-url', '--add', '--push', 'origin', server.url('p.git')], env);
    await git(work, ['remote', 'set-url', '--add', '--push', 'origin', server.url('q.git')], env);
    const channel = await openCredentialChannel(channelOptions());
    expect((await pushMain(channel.env)).exitCode).toBe(0);
    // Each push URL runs its own git-remote-http, each asks once: an fd pipe would serve only one.
    expect(channel.answered).toBe(2);
    await channel.close();

    const elsewhere = await openCredentialChannel(channelOptions({ host: 'forge.example.com' }));
    await git(work, ['commit', '-q', '--allow-empty', '-m', 'second'], env);
    expect((await pushMain(elsewhere.env)).exitCode).not.toBe(0);
    expect(elsewhere.answered).toBe(0);
    await elsewhere.close();
  });

  it('puts the token in no cmdline or environ of git, git-remote-http, send-pack or the helper', async () => {
    // The push and the helper's answer are held for seconds, so each short-lived process lives
    // through several whole scans of /proc even when one scan takes a loaded machine 1 s.
    await server.holdReceivePack(4000);
    const seen = new Map<number, { cmdline: string; environ: string }>();
    let pushing = true;
    const push = withCredential(channelOptions({ answerDelayMs: 4000 }), (e) => pushMain(e)).finally(() => (pushing = false));
    while (pushing) {
      for (const pid of await descendants(process.pid)) {
        const cmdline = await readProc(pid, 'cmdline');
        const environ = await readProc(pid, 'environ');
        if (cmdline !== null && environ !== null) seen.set(pid, { cmdline, environ });
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    expect((await push).exitCode).toBe(0);

    const cmdlines = [...seen.values()].map((p) => p.cmdline);
    expect(cmdlines.some((c) => c.startsWith('git\0-C\0'))).toBe(true);
    expect(cmdlines.some((c) => c.includes('remote-http'))).toBe(true);
    expect(cmdlines.some((c) => c.includes('send-pack'))).toBe(true);
    expect(cmdlines.some((c) => c.includes(`${ABCD_BIN}\0credential\0--socket\0`))).toBe(true);
    // The scan could read environments at all (the channel's config is in git's).
    expect([...seen.values()].some((p) => p.environ.includes('GIT_CONFIG_COUNT='))).toBe(true);
    for (const { cmdline, environ } of seen.values()) {
      expect(cmdline).not.toContain(token);
      expect(environ).not.toContain(token);
    }
  });

  it("clears the person's own helper for the host, so it is never asked", async () => {
    const marker = join(home, 'helper-called');
    const helper = `!f() { echo "$1" >> '${marker}'; cat >/dev/null; [ "$1" = get ] && printf 'username=${USER}\\npassword=wrong\\n'; }; f`;
    const url = `http://127.0.0.1:${server.port}`;
    await writeFile(
      join(home, '.gitconfig'),
      `[credential "${url}"]\n\thelper = ${JSON.stringify(helper)}\n[credential]\n\thelper = ${JSON.stringify(helper)}\n`,
    );
    // Control: without the channel the person's helper answers (wrongly) for this host.
    expect((await pushMain()).exitCode).not.toBe(0);
    expect(await readFile(marker, 'utf8')).toMatch(/^get$/m);
    await writeFile(marker, '');

    expect((await withCredential(channelOptions(), (e) => pushMain(e))).exitCode).toBe(0);
    expect(await readFile(marker, 'utf8')).toBe('');
  });

  it('keeps GIT_CONFIG_COUNT entries the environment already has', () => {
    const e = credentialConfigEnv('!helper', { GIT_CONFIG_COUNT: '2' });
    expect(e).toEqual({
      GIT_CONFIG_COUNT: '4',
      GIT_CONFIG_KEY_2: 'credential.helper',
      GIT_CONFIG_VALUE_2: '',
      GIT_CONFIG_KEY_3: 'credential.helper',
      GIT_CONFIG_VALUE_3: '!helper',
    });
  });
});

describe('abcd credential', () => {
  const request = 'protocol=http\nhost=127.0.0.1\n\n';
  const abcd = (args: string[]) =>
    execa(process.execPath, [ABCD_BIN, 'credential', ...args], { env, extendEnv: false, reject: false, input: request, timeout: 30_000 });

  it.each([['store'], ['erase'], ['get'], ['get', '--socket', '/nonexistent/abcd/s']])(
    'credential %s prints nothing and exits 0 (no channel, or nothing to do)',
    async (...args: string[]) => {
      const r = await abcd(args);
      expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
    },
  );

  it('is listed in --help', async () => {
    const r = await execa(process.execPath, [ABCD_BIN, '--help'], { env, extendEnv: false, reject: false });
    expect(r.stdout).toMatch(/abcd credential <action>/);
  });
});

/** Every live descendant of pid, found through each process's parent in /proc/<pid>/stat. */
async function descendants(root: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => null);
    // The command name may hold spaces and parentheses: fields resume after the last ')'.
    const ppid = stat === null ? NaN : Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!Number.isNaN(ppid)) parents.set(Number(name), ppid);
  }
  const out: number[] = [];
  const frontier = [root];
  while (frontier.length > 0) {
    const parent = frontier.pop()!;
    for (const [pid, ppid] of parents) {
      if (ppid !== parent) continue;
      out.push(pid);
      frontier.push(pid);
    }
  }
  return out;
}

function readProc(pid: number, file: string): Promise<string | null> {
  return readFile(`/proc/${pid}/${file}`, 'latin1').catch(() => null);
}
