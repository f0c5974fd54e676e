// The person's own `abcd land`: what its sandboxed checks connected to, and what it says when they
// run without the sandbox. Each connection a check asks abcd's egress proxy for, allowed or
// refused, is one line on the land's stderr as it happens and counted in the answer's
// `network`; `land.sandbox: "none"` says, on stderr and in the answer, that the checks had this
// computer's network and files. Real bubblewrap, real curl, a real server on the host's loopback.
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { laneSession, remoteWithItems } from '../harness/lanes.js';
import type { Session } from '../harness/session.js';

// A network namespace of its own needs unprivileged user namespaces, and the check uses curl.
const UNABLE = (() => {
  try {
    execFileSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-net', '--', 'true'], { stdio: 'ignore', timeout: 10_000 });
    execFileSync('sh', ['-c', 'command -v curl'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'bubblewrap cannot make a network namespace here, or curl is missing';
  }
})();

afterAll(cleanupTemp);

async function hostServer(body: string): Promise<{ port: number; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((_req, res) => {
    hits++;
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits: () => hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The person holds `item` and has one commit of work on its branch. */
async function ownWork(s: Session, item: string): Promise<void> {
  expect((await s.abcd(['reserve', item])).code).toBe(0);
  await s.git(['checkout', '-q', '-b', `work/${item}`]);
  await s.commit(`${item}.txt`, `${item}\n`);
}

function onPath(program: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(UNABLE)("the person's own land", () => {
  it('each connection of its sandboxed checks is one line on stderr and counted in the answer, after the relay that carried it', async () => {
    const [a, b] = await Promise.all([hostServer('from-a'), hostServer('from-b')]);
    try {
      // The check passes only when A answers through the proxy and B is refused.
      const get = (port: number) => `curl -sS -f --max-time 20 http://127.0.0.1:${port}/`;
      const check = `${get(a.port)} | grep -q from-a && ! ${get(b.port)}`;
      const remote = await remoteWithItems([{ slug: 'fetch' }, { slug: 'again' }], {
        land: { checks: check, sandbox: 'bwrap', network: { allow: [`127.0.0.1:${a.port}`] } },
      });
      const s = await laneSession(remote, 'person');
      await ownWork(s, 'fetch');
      const r = await s.abcd(['land', 'fetch', '--json'], { timeoutMs: 90_000 });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.json).toMatchObject({
        checksSandbox: 'bwrap',
        network: { allowed: 1, refused: 1, hosts: [`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`] },
      });
      expect(r.json.hostAccess).toBeUndefined();
      const lines = r.stderr.split('\n');
      expect(lines).toContain(`abcd: network: allowed GET 127.0.0.1:${a.port}`);
      expect(lines).toContain(`abcd: network: refused GET 127.0.0.1:${b.port} (not in land.network.allow)`);
      // Which relay the checks' sandbox started, said once: socat where it is on PATH.
      const socat = onPath('socat');
      const relay = `abcd: network: relay ${socat ? 'socat' : 'node (socat is not installed)'}`;
      expect(lines.filter((l) => l.startsWith('abcd: network: relay'))).toEqual([relay]);
      expect(lines.indexOf(relay)).toBeLessThan(lines.indexOf(`abcd: network: allowed GET 127.0.0.1:${a.port}`));
      expect([a.hits(), b.hits()]).toEqual([1, 0]);
      // The text answer says the counts with the checks.
      await s.git(['checkout', '-q', 'main']);
      await s.git(['pull', '-q', 'origin', 'main']);
      await ownWork(s, 'again');
      const text = await s.abcd(['land', 'again'], { timeoutMs: 90_000 });
      expect(text.code, text.stdout + text.stderr).toBe(0);
      expect(text.stdout).toContain(`network: 1 allowed, 1 refused (127.0.0.1:${a.port}, 127.0.0.1:${b.port})`);
      expect(text.stderr.split('\n').filter((l) => l.startsWith('abcd: network: '))).toEqual([
        relay,
        `abcd: network: allowed GET 127.0.0.1:${a.port}`,
        `abcd: network: refused GET 127.0.0.1:${b.port} (not in land.network.allow)`,
      ]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 180_000);

  it('land.sandbox "none" says on stderr and in the answer that the checks have the host\'s network and files', async () => {
    const web = await hostServer('host-loopback');
    try {
      // Unsandboxed, the check reaches the host's loopback directly: what the warning is for.
      const remote = await remoteWithItems([{ slug: 'plain' }], {
        land: { checks: `curl -sS -f --max-time 20 http://127.0.0.1:${web.port}/ | grep -q host-loopback`, sandbox: 'none' },
      });
      const s = await laneSession(remote, 'person');
      await ownWork(s, 'plain');
      const r = await s.abcd(['land', 'plain', '--json'], { timeoutMs: 90_000 });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.json).toMatchObject({
        checksSandbox: 'none',
        hostAccess: ['network', 'files'],
        warning: expect.stringMatching(/land\.sandbox is "none".*network and files/),
      });
      expect(r.json.network).toBeUndefined();
      const warnings = r.stderr.split('\n').filter((l) => l.startsWith('abcd: warning: '));
      expect(warnings).toEqual([
        'abcd: warning: land.sandbox is "none": the checks run as you, with this computer\'s network and files (no sandbox, no egress proxy)',
      ]);
      expect(web.hits()).toBe(1);
    } finally {
      await web.close();
    }
  }, 120_000);
});
