import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHttpGitServer, type HttpGitServer } from '../harness/http-server.js';

interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

let tmp: string;
let root: string;
let home: string;
let server: HttpGitServer | undefined;

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'abcd-http-test-'));
  root = join(tmp, 'remotes');
  home = join(tmp, 'home');
  await mkdir(home, { recursive: true });
  await mustGit(['init', '--bare', '--initial-branch=main', join(root, 'project.git')]);
  await mustGit(['-C', join(root, 'project.git'), 'config', 'http.receivepack', 'true']);
});

afterEach(async () => {
  await server?.stop();
  server = undefined;
  await rm(tmp, { recursive: true, force: true });
});

// A hermetic git: its own HOME, no system or user config, no prompts, no signing, no maintenance.
function gitEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('GIT_') && name !== 'SSH_ASKPASS') env[name] = value;
  }
  const config = [
    ['commit.gpgsign', 'false'],
    ['maintenance.auto', 'false'],
    ['gc.auto', '0'],
    // Empty clears every helper, so no credential of the machine's user answers for 127.0.0.1.
    ['credential.helper', ''],
  ];
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_COUNT: String(config.length),
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Test Author',
    GIT_AUTHOR_EMAIL: 'author@example.test',
    GIT_COMMITTER_NAME: 'Test Committer',
    GIT_COMMITTER_EMAIL: 'committer@example.test',
    ...extra,
  };
}

function git(args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const stdin = options.input === undefined ? 'ignore' : 'pipe';
    const child = spawn('git', args, { env: gitEnv(options.env), stdio: [stdin, 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdin?.end(options.input);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

async function mustGit(args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<string> {
  const result = await git(args, options);
  if (result.code !== 0) throw new Error(`git ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return result.stdout;
}

async function cloneWithCommit(url: string, name: string): Promise<{ dir: string; head: string }> {
  const dir = join(tmp, name);
  await mustGit(['clone', url, dir]);
  await writeFile(join(dir, 'file.txt'), `${name}\n`);
  await mustGit(['-C', dir, 'add', 'file.txt']);
  await mustGit(['-C', dir, 'commit', '-m', name]);
  return { dir, head: (await mustGit(['-C', dir, 'rev-parse', 'HEAD'])).trim() };
}

async function remoteRefs(url: string): Promise<Map<string, string>> {
  const lines = (await mustGit(['ls-remote', url])).split('\n').filter(Boolean);
  return new Map(lines.map((line) => line.split('\t') as [string, string]).map(([oid, ref]) => [ref, oid]));
}

describe('http git server', () => {
  it('serves clone, push and ls-remote', async () => {
    server = await startHttpGitServer({ root });
    const url = server.url('project.git');
    expect(url).toBe(`http://127.0.0.1:${server.port}/project.git`);

    const { dir, head } = await cloneWithCommit(url, 'work');
    await mustGit(['-C', dir, 'push', 'origin', 'HEAD:refs/heads/main']);

    expect((await remoteRefs(url)).get('refs/heads/main')).toBe(head);
    const requests = await server.requests();
    expect(requests).toContainEqual(
      expect.objectContaining({
        method: 'GET',
        path: '/project.git/info/refs',
        query: 'service=git-upload-pack',
        gitProtocol: 'version=2',
      }),
    );
    expect(requests).toContainEqual(
      expect.objectContaining({
        method: 'POST',
        path: '/project.git/git-receive-pack',
        authPresent: false,
        user: null,
        authorized: true,
      }),
    );
  });

  it('applies an atomic push of two refs all or nothing', async () => {
    server = await startHttpGitServer({ root });
    const url = server.url('project.git');
    const { dir, head } = await cloneWithCommit(url, 'work');

    await mustGit(['-C', dir, 'push', '--atomic', 'origin', 'HEAD:refs/heads/a', 'HEAD:refs/heads/b']);
    let refs = await remoteRefs(url);
    expect([refs.get('refs/heads/a'), refs.get('refs/heads/b')]).toEqual([head, head]);

    // b would not fast-forward (its parent is not b's tip): a must not move either.
    await mustGit(['-C', dir, 'commit', '--allow-empty', '-m', 'next']);
    await mustGit(['-C', dir, 'checkout', '--orphan', 'other']);
    await mustGit(['-C', dir, 'commit', '-m', 'unrelated']);
    const refused = await git(['-C', dir, 'push', '--atomic', 'origin', 'main:refs/heads/a', 'other:refs/heads/b']);
    expect(refused.code).not.toBe(0);
    refs = await remoteRefs(url);
    expect([refs.get('refs/heads/a'), refs.get('refs/heads/b')]).toEqual([head, head]);
  });

  it('streams large chunked and gzipped bodies', async () => {
    server = await startHttpGitServer({ root });
    const url = server.url('project.git');
    const { dir } = await cloneWithCommit(url, 'work');
    // Few refs: over HTTP git push expands a ref pattern into explicit refspecs and matches them
    // in quadratic time on the client (2,000 refs ≈ 4 s), which would only test git's patience.
    const count = 300;
    // One commit per ref so a later clone sends 300 distinct wants (a gzipped request body).
    const commits = Array.from({ length: count }, (_, i) =>
      [`commit refs/heads/many/${i}`, 'committer T <t@example.test> 0 +0000', `data ${String(i).length}`, String(i), ''].join('\n'),
    );
    // An incompressible blob makes the pack larger than the post buffer below.
    const noise = randomBytes(256 * 1024).toString('base64');
    const big = [
      'commit refs/heads/big',
      'committer T <t@example.test> 0 +0000',
      'data 3',
      'big',
      'M 100644 inline noise.txt',
      `data ${noise.length}`,
      noise,
      '',
    ].join('\n');
    await mustGit(['-C', dir, 'fast-import', '--quiet'], { input: `${[...commits, big].join('\n')}\n` });

    // A small postBuffer forces git to send the push as a chunked body without Content-Length.
    await mustGit([
      '-C',
      dir,
      '-c',
      'http.postBuffer=65520',
      'push',
      'origin',
      'refs/heads/many/*:refs/heads/many/*',
      'refs/heads/big:refs/heads/big',
    ]);
    await mustGit(['clone', '--bare', url, join(tmp, 'copy.git')]);

    const copied = await mustGit(['-C', join(tmp, 'copy.git'), 'for-each-ref', '--format=%(refname)', 'refs/heads/many/']);
    expect(copied.split('\n').filter(Boolean)).toHaveLength(count);
    const bigTip = await mustGit(['-C', dir, 'rev-parse', 'refs/heads/big']);
    expect(await mustGit(['-C', join(tmp, 'copy.git'), 'rev-parse', 'refs/heads/big'])).toBe(bigTip);
    await mustGit(['-C', join(tmp, 'copy.git'), 'fsck', '--no-progress']);
    const requests = await server.requests();
    expect(requests).toContainEqual(expect.objectContaining({ path: '/project.git/git-receive-pack', chunked: true }));
    expect(requests).toContainEqual(expect.objectContaining({ path: '/project.git/git-upload-pack', contentEncoding: 'gzip' }));
  });

  describe('with Basic auth', () => {
    const user = 'abcd-user';
    const password = 's3cret-Pa55';

    it('refuses a push without credentials and accepts askpass or URL credentials', async () => {
      server = await startHttpGitServer({ root, auth: { user, password } });
      const url = server.url('project.git');
      const withCredentials = url.replace('http://', `http://${user}:${password}@`);
      const { dir, head } = await cloneWithCommit(withCredentials, 'work');

      const anonymous = await git(['-C', dir, 'push', url, 'HEAD:refs/heads/anonymous']);
      expect(anonymous.code).not.toBe(0);
      const wrong = await git(['-C', dir, 'push', url.replace('http://', `http://${user}:wrong@`), 'HEAD:refs/heads/wrong']);
      expect(wrong.code).not.toBe(0);

      const askpass = join(tmp, 'askpass.sh');
      await writeFile(askpass, `#!/bin/sh\ncase "$1" in Username*) echo "${user}";; *) echo "$ASKPASS_SECRET";; esac\n`);
      await chmod(askpass, 0o700);
      await mustGit(['-C', dir, 'push', url, 'HEAD:refs/heads/askpass'], {
        env: { GIT_ASKPASS: askpass, ASKPASS_SECRET: password },
      });
      await mustGit(['-C', dir, 'push', withCredentials, 'HEAD:refs/heads/in-url']);

      const refs = await remoteRefs(withCredentials);
      expect([...refs.keys()].filter((ref) => ref.startsWith('refs/heads/')).sort()).toEqual(['refs/heads/askpass', 'refs/heads/in-url']);
      expect(refs.get('refs/heads/askpass')).toBe(head);
      const requests = await server.requests();
      expect(requests).toContainEqual(expect.objectContaining({ authPresent: false, authorized: false }));
      expect(requests).toContainEqual(expect.objectContaining({ authPresent: true, user, authorized: false }));
      expect(requests).toContainEqual(
        expect.objectContaining({
          method: 'POST',
          path: '/project.git/git-receive-pack',
          user,
          authorized: true,
        }),
      );
      expect(JSON.stringify(requests)).not.toContain(password);
    });

    it('answers 401 with a Basic challenge', async () => {
      server = await startHttpGitServer({ root, auth: { user, password } });
      const response = await fetch(`${server.url('project.git')}/info/refs?service=git-upload-pack`);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Basic realm="abcd-test"');
    });
  });

  describe('holding receive-pack', () => {
    const holdMs = 1500;

    it('delays a push until the hold ends, before any ref moves', async () => {
      server = await startHttpGitServer({ root, holdReceivePackMs: holdMs });
      const url = server.url('project.git');
      const { dir, head } = await cloneWithCommit(url, 'work');

      const started = Date.now();
      const push = git(['-C', dir, 'push', 'origin', 'HEAD:refs/heads/main']);
      await waitForHeldPush(server);
      // Read the bare repository directly: an HTTP round trip on a loaded machine could outlast the hold.
      const during = await git(['-C', join(root, 'project.git'), 'rev-parse', '--verify', '-q', 'refs/heads/main']);
      expect(during.code).not.toBe(0);

      expect((await push).code).toBe(0);
      expect(Date.now() - started).toBeGreaterThanOrEqual(holdMs);
      expect((await remoteRefs(url)).get('refs/heads/main')).toBe(head);
    });

    it('stops cleanly while a push is held, and the push fails', async () => {
      server = await startHttpGitServer({ root, holdReceivePackMs: 60_000 });
      const { dir } = await cloneWithCommit(server.url('project.git'), 'work');
      const push = git(['-C', dir, 'push', 'origin', 'HEAD:refs/heads/main']);
      await waitForHeldPush(server);

      await server.stop();
      expect((await push).code).not.toBe(0);
      expect((await readFile(join(root, 'project.git', 'HEAD'), 'utf8')).trim()).toBe('ref: refs/heads/main');
    });
  });
});

async function waitForHeldPush(server: HttpGitServer): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const requests = await server.requests();
    if (requests.some((r) => r.method === 'POST' && r.path.endsWith('/git-receive-pack') && r.holdMs > 0)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('no held receive-pack request arrived within 10 s');
}
