// A sandbox's only way out is abcd's egress proxy. An agent (the command runtime, plain curl)
// reaches a host its lane's `lanes.network.allow` names, through the proxy; a host it does not
// name is refused, and a connection that ignores the proxy goes nowhere (the sandbox's network
// namespace has a loopback only). Each connection is one line in the run's log and counted in
// the cycle's result. Nothing else on the host is reachable: a unix socket under /run, a host
// abstract socket, a server on the host's loopback, from an agent and from a land check.
import { execFileSync } from 'node:child_process';
import { chmod, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { laneRun, laneSession, remoteWithItems } from '../harness/lanes.js';

// bubblewrap with a network namespace of its own needs user namespaces; without them there is nothing to test.
const NO_NETNS = (() => {
  try {
    execFileSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-net', '--', 'true'], { stdio: 'ignore', timeout: 10_000 });
    return undefined;
  } catch {
    return 'bubblewrap cannot make a network namespace here (no unprivileged user namespaces)';
  }
})();
const HAS_CURL = (() => {
  try {
    execFileSync('sh', ['-c', 'command -v curl'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** An HTTP server on the host's loopback that counts the requests it got. */
async function hostServer(body: string): Promise<{ port: number; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server: Server = createHttpServer((_req, res) => {
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

/** A unix socket listener (a path, or `\0name` for an abstract one) that counts connections. */
async function socketServer(path: string): Promise<{ hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server: NetServer = createServer((s) => {
    hits++;
    s.end('hello\n');
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { hits: () => hits, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * A shell function `get URL [curl flags]` writing the body (or curl's error) to stdout and
 * ending as curl does; a node one-liner that speaks to $HTTP_PROXY where curl is missing.
 */
const GET = HAS_CURL
  ? 'get() { u=$1; shift; curl -sS --max-time 20 "$@" "$u"; }'
  : `get() { node -e 'const p=new URL(process.env.HTTP_PROXY);const d=process.argv[2]==="--noproxy";const u=new URL(process.argv[1]);require("http").get(d?u:{host:p.hostname,port:p.port,path:u.href},r=>{r.pipe(process.stdout);r.on("end",()=>process.exit(r.statusCode<400?0:22))}).on("error",e=>{console.log(e.message);process.exit(7)})' "$1" "$2"; }`;

/** A node one-liner that exits 0 when it could connect to the unix socket `$1` (`@name`: an abstract one). */
const CONNECT_SOCKET = `node -e 'const a=process.argv[1];const s=require("net").connect(a.startsWith("@")?"\\0"+a.slice(1):a);s.on("connect",()=>process.exit(0));s.on("error",()=>process.exit(1))'`;

describe.skipIf(NO_NETNS)('the egress proxy', () => {
  afterAll(cleanupTemp);

  it("an agent reaches the host lanes.network.allow names, only through the proxy; the run's log and the cycle's result list both", async () => {
    const [a, b] = await Promise.all([hostServer('from-server-a'), hostServer('from-server-b')]);
    try {
      const remote = await remoteWithItems([{ slug: 'fetch' }], { lanes: { network: { allow: [`127.0.0.1:${a.port}`] } } });
      const s = await laneSession(remote, 'egress');
      const A = `http://127.0.0.1:${a.port}/`;
      const B = `http://127.0.0.1:${b.port}/`;
      const agent = [
        GET,
        `get ${A} > a.txt 2>&1; echo $? > a.code`,
        `get ${B} > b.txt 2>&1; echo $? > b.code`,
        `get ${A} --noproxy '*' > direct.txt 2>&1; echo $? > direct.code`,
        'git add -A && git commit -qm fetched',
      ].join('\n');
      const r = await s.abcd(['build', 'fetch', '--json', '--sandbox', 'bwrap', '--agent', agent], { timeoutMs: 90_000 });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const cycle = laneRun(r).record.cycles[0];
      expect(cycle).toMatchObject({ outcome: 'landed', network: { allowed: 1, refused: 1 } });
      expect(cycle.network.hosts).toEqual([`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`]);
      const show = (f: string) =>
        execFileSync('git', ['-C', remote.dir, 'show', `main:${f}`])
          .toString()
          .trim();
      expect(show('a.txt')).toBe('from-server-a');
      expect(show('a.code')).toBe('0');
      // B is refused by the proxy (its answer says why), and the direct connection finds no route out.
      expect(show('b.txt')).toContain(`127.0.0.1:${b.port} is refused: not in lanes.network.allow`);
      expect(show('direct.code')).not.toBe('0');
      expect(show('direct.txt')).not.toContain('from-server-a');
      expect([a.hits(), b.hits()]).toEqual([1, 0]);
      const logs = await s.abcd(['logs', r.json.runId, '--json']);
      expect(logs.code, logs.stderr).toBe(0);
      const text = logs.json.cycles[0].text as string;
      expect(text).toContain(`[abcd] network: allowed GET 127.0.0.1:${a.port}`);
      expect(text).toContain(`[abcd] network: refused GET 127.0.0.1:${b.port} (not in lanes.network.allow)`);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 120_000);

  it("neither an agent nor a land check reaches a socket under /run, a host abstract socket, or (with the check's default list) the host's loopback", async () => {
    const tag = `abcd-egress-${process.pid}-${Date.now()}`;
    const runSocket = `/run/${tag}.sock`;
    const canRun = (() => {
      try {
        execFileSync('sh', ['-c', `: > /run/${tag}.probe && rm /run/${tag}.probe`], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    })();
    const [web, abstract, run] = await Promise.all([
      hostServer('host-loopback'),
      socketServer(`\0${tag}`),
      canRun ? socketServer(runSocket) : Promise.resolve(undefined),
    ]);
    try {
      // Each probe sets one bit when it reached what it must not: the check fails, the agent's file says.
      const probes = [
        GET,
        'r=0',
        `${CONNECT_SOCKET} @${tag} && r=$((r|1))`,
        canRun ? `${CONNECT_SOCKET} ${runSocket} && r=$((r|2))` : '',
        `get http://127.0.0.1:${web.port}/ | grep -q host-loopback && r=$((r|4))`,
        `get http://127.0.0.1:${web.port}/ --noproxy '*' | grep -q host-loopback && r=$((r|8))`,
        'ls -A /run /var/run > run-listing.txt 2>&1',
        'echo "probes: $r"',
      ]
        .filter(Boolean)
        .join('\n');
      const remote = await remoteWithItems([{ slug: 'reach' }], { land: { checks: 'sh probe.sh' } });
      const s = await laneSession(remote, 'sockets');
      const script = Buffer.from(`${probes}\nexit $r\n`).toString('base64');
      const agent = `echo ${script} | base64 -d > probe.sh; sh probe.sh > agent.txt 2>&1; echo $? > agent.code; git add -A && git commit -qm probed`;
      // The check runs the committed probe.sh: `sh probe.sh` exits with its bits.
      const r = await s.abcd(['build', 'reach', '--json', '--sandbox', 'bwrap', '--agent', agent], { timeoutMs: 90_000 });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const cycle = laneRun(r).record.cycles[0];
      expect(cycle).toMatchObject({ outcome: 'landed' });
      const show = (f: string) =>
        execFileSync('git', ['-C', remote.dir, 'show', `main:${f}`])
          .toString()
          .trim();
      expect(show('agent.code')).toBe('0');
      expect(show('agent.txt')).toContain('probes: 0');
      expect(show('run-listing.txt')).not.toContain(tag);
      expect([web.hits(), abstract.hits(), run?.hits() ?? 0]).toEqual([0, 0, 0]);
      // The agent's proxied try and the check's were both refused, and both counted in the cycle.
      expect(cycle.network).toMatchObject({ allowed: 0, refused: 2, hosts: [`127.0.0.1:${web.port}`] });
      const logs = await s.abcd(['logs', r.json.runId, '--json']);
      expect(logs.json.cycles[0].text).toContain(`refused GET 127.0.0.1:${web.port} (not in land.network.allow)`);
    } finally {
      await Promise.all([web.close(), abstract.close(), run?.close()]);
      await rm(runSocket, { force: true });
    }
  }, 120_000);

  it('where bubblewrap cannot make a network namespace, an unattended lane refuses (exit 7) before it claims anything', async () => {
    // A bwrap that works, but not with --unshare-net (user namespaces for networking refused).
    const bin = await tempDir('bwrap-no-netns');
    const real = execFileSync('sh', ['-c', 'command -v bwrap']).toString().trim();
    await writeFile(
      join(bin, 'bwrap'),
      `#!/bin/sh\nfor a; do [ "$a" = --unshare-net ] && { echo 'bwrap: creating new namespace failed: Operation not permitted' >&2; exit 1; }; done\nexec ${real} "$@"\n`,
    );
    await chmod(join(bin, 'bwrap'), 0o755);
    const remote = await remoteWithItems([{ slug: 'offline' }]);
    const s = await laneSession(remote, 'no-netns');
    const r = await s.abcd(['drain', '--json', '--agent', 'echo x > x.txt'], { env: { PATH: `${bin}:${process.env.PATH}` } });
    expect(r.code, r.stdout + r.stderr).toBe(7);
    expect(r.json.refusal).toMatchObject({ code: 'unsafe-environment' });
    expect(r.json.refusal.message).toMatch(/cannot give a sandbox its own network namespace.*Operation not permitted/);
    expect([...(await remote.refs()).keys()].filter((x) => x.startsWith('refs/heads/abcd/'))).toEqual([]);
    // --sandbox none keeps the host's network and files as they are, and the lane says so: one
    // line on stderr before the agent runs, and in the answer.
    const none = await s.abcd(['drain', '--json', '--sandbox', 'none', '--agent', 'true']);
    expect(laneRun(none), none.stdout + none.stderr).toMatchObject({
      sandbox: 'none',
      hostAccess: ['network', 'files'],
      warning: expect.stringMatching(
        /unsandboxed: it has this computer's network and files as you do, with no sandbox and no egress proxy/,
      ),
    });
    expect(none.stderr.split('\n').filter((l) => l.startsWith('abcd: warning: '))).toEqual([
      "abcd: warning: The agent runs unsandboxed: it has this computer's network and files as you do, with no sandbox and no egress proxy.",
    ]);
    expect(laneRun(none).record.cycles[0].network).toBeUndefined();
  }, 60_000);
});
