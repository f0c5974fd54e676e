// The egress allow-list's grammar and matching, the config keys that hold it, and the relay's
// generic seam: an in-sandbox loopback address forwarded to a unix socket on the host (what a
// model gateway plugs into), run in real bubblewrap.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxArgv } from '../../src/machine/sandbox/bwrap.js';
import { matchAllow, parseAllowEntry, reachableByName, urlEndpoint, type AllowEntry } from '../../src/machine/sandbox/network-allow.js';
import { GATEWAY_ADDRESS, openSandboxNetwork, type NetworkEvent } from '../../src/machine/sandbox/sandbox-network.js';
import { startEgressProxy } from '../../src/machine/sandbox/egress-proxy.js';
import { readLandConfig } from '../../src/land/checks/checks.js';
import { parseRepoConfig } from '../../src/repo/config.js';
import { UsageError } from '../../src/core/refusals.js';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { decodeLaneResult, encodeLaneResult, type CycleRecord, type LaneResultRecord } from '../../src/records/lane-result.js';
import { keepNewestTails } from '../../src/lanes/logs/output-tail.js';

afterAll(cleanupTemp);

const NO_NETNS = (() => {
  try {
    execFileSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-net', '--', 'true'], { stdio: 'ignore', timeout: 10_000 });
    return undefined;
  } catch {
    return 'bubblewrap cannot make a network namespace here (no unprivileged user namespaces)';
  }
})();

describe('the egress allow-list', () => {
  it('parses host:port, [v6]:port and *.domain:port; refuses anything else', () => {
    expect(parseAllowEntry('Registry.NPMjs.org:443')).toEqual({ host: 'registry.npmjs.org', port: 443, wildcard: false });
    expect(parseAllowEntry('*.pythonhosted.org:443')).toEqual({ host: 'pythonhosted.org', port: 443, wildcard: true });
    expect(parseAllowEntry('[::1]:8080')).toEqual({ host: '::1', port: 8080, wildcard: false });
    expect(parseAllowEntry('127.0.0.1:3000')).toEqual({ host: '127.0.0.1', port: 3000, wildcard: false });
    for (const bad of [
      'example.com',
      'example.com:0',
      'example.com:65536',
      '*:443',
      '*.10.0.0.1:80',
      'a b:80',
      '-x.com:80',
      'x_y.com:80',
      'http://x.com:80',
    ])
      expect(parseAllowEntry(bad), bad).toBeUndefined();
  });

  it('matches a host as named and a wildcard below its domain only, on the entry port only', () => {
    const entries = ['registry.npmjs.org:443', '*.example.com:443'].map((e) => parseAllowEntry(e)!) as AllowEntry[];
    expect(matchAllow(entries, 'registry.npmjs.org', 443)).toBeDefined();
    expect(matchAllow(entries, 'registry.npmjs.org', 80)).toBeUndefined();
    expect(matchAllow(entries, 'a.b.example.com', 443)).toBeDefined();
    expect(matchAllow(entries, 'example.com', 443)).toBeUndefined();
    expect(matchAllow(entries, 'evilexample.com', 443)).toBeUndefined();
    expect(matchAllow(entries, 'registry.npmjs.org.evil.net', 443)).toBeUndefined();
  });

  it('a wildcard name may not resolve to loopback, unspecified or link-local addresses', () => {
    for (const a of ['127.0.0.1', '127.8.9.1', '0.0.0.0', '169.254.169.254', '::1', '::', 'fe80::1', '::ffff:127.0.0.1'])
      expect(reachableByName(a), a).toBe(false);
    for (const a of ['10.1.2.3', '93.184.216.34', '2606:4700::1']) expect(reachableByName(a), a).toBe(true);
  });

  it("a model API's base URL names its endpoint, the scheme's port when it names none", () => {
    expect(urlEndpoint('https://api.anthropic.com')).toBe('api.anthropic.com:443');
    expect(urlEndpoint('http://127.0.0.1:4000/v1')).toBe('127.0.0.1:4000');
    expect(urlEndpoint('http://[::1]:9/v1')).toBe('[::1]:9');
    expect(urlEndpoint('ftp://x')).toBeUndefined();
    expect(urlEndpoint('not a url')).toBeUndefined();
  });
});

describe("the cycle result's network counts", () => {
  it('round-trip in the record; a long run keeps the counts of its older cycles and drops their hosts', () => {
    const cycle = (i: number): CycleRecord => ({
      item: `i${i}`,
      outcome: 'landed',
      startedAt: 1,
      durationMs: 1,
      network: { allowed: i, refused: 1, hosts: ['registry.npmjs.org:443', '[::1]:8080'] },
    });
    const cycles = keepNewestTails(Array.from({ length: 30 }, (_, i) => cycle(i)));
    expect(cycles[0]!.network).toEqual({ allowed: 0, refused: 1 });
    expect(cycles.at(-1)!.network).toEqual(cycle(29).network);
    const record: LaneResultRecord = {
      abcd: 'lane',
      v: 1,
      runId: 'r1',
      verb: 'build',
      holder: { person: 'p@example.com', host: 'h', session: 's' },
      lifecycle: 'once',
      lanes: 1,
      state: 'finished',
      startedAt: 1,
      at: 1,
      ttl: 1000,
      current: [],
      cycles,
      deferred: [],
      usage: 0,
    };
    expect(decodeLaneResult('refs/heads/abcd/lanes/r1', encodeLaneResult(record)).cycles).toEqual(cycles);
  });
});

describe('the network config keys', () => {
  it('lanes.network.allow and land.network.allow take entries; a bad one is refused naming its place and the grammar', () => {
    const config = { land: { network: { allow: ['registry.npmjs.org:443'] } }, lanes: { network: { allow: ['*.example.com:443'] } } };
    expect(parseRepoConfig(JSON.stringify(config), 'x')).toEqual(config);
    for (const config of [{ lanes: { network: { allow: ['example.com'] } } }, { land: { network: { allow: ['*:80'] } } }]) {
      let e: unknown;
      try {
        parseRepoConfig(JSON.stringify(config), '.abcd/config.json on main');
      } catch (x) {
        e = x;
      }
      expect(e).toBeInstanceOf(UsageError);
      expect((e as UsageError).message).toContain('host:port or *.domain:port');
      expect(JSON.stringify((e as UsageError).data)).toMatch(/network\.allow\.0/);
    }
  });

  it('land.network false keeps a check off every network; true (older configs) and absent mean the allow-list, empty', async () => {
    const read = async (land: unknown) => {
      const content = Buffer.from(JSON.stringify({ land }));
      const git = { objects: { readObjects: () => Promise.resolve({ ok: true, value: [{ type: 'blob', content }] }) } };
      return (await readLandConfig(git as never, 'tip', () => 0)).network;
    };
    expect(await read({ network: false })).toBe(false);
    expect(await read({ network: true })).toEqual({ allow: [] });
    expect(await read({})).toEqual({ allow: [] });
    expect(await read({ network: { allow: ['a.example:443'] } })).toEqual({ allow: ['a.example:443'] });
  });
});

/** Sends `text` on the proxy's unix socket and answers everything it got back until it closed (or `until` matched). */
function talk(socket: string, text: string, until?: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = connect(socket);
    let got = '';
    c.on('data', (d) => {
      got += d.toString();
      if (until?.test(got)) c.end();
    });
    c.on('close', () => resolve(got));
    c.on('error', reject);
    c.write(text);
  });
}

describe('the egress proxy on its socket', () => {
  it('tunnels a CONNECT to an allowed host, forwards a plain request with Via, and refuses the rest, each reported once', async () => {
    const echo: Server = createServer((s) => s.pipe(s));
    let via = '';
    const web = createHttpServer((req, res) => {
      via = String(req.headers.via);
      res.end(`path ${req.url}`);
    });
    await Promise.all([new Promise<void>((r) => echo.listen(0, '127.0.0.1', r)), new Promise<void>((r) => web.listen(0, '127.0.0.1', r))]);
    const [e, w] = [(echo.address() as AddressInfo).port, (web.address() as AddressInfo).port];
    const events: NetworkEvent[] = [];
    const allow = [`127.0.0.1:${e}`, `127.0.0.1:${w}`].map((x) => parseAllowEntry(x)!);
    const proxy = await startEgressProxy({
      dir: await tempDir('proxy'),
      allow,
      allowKey: 'land.network.allow',
      onEvent: (x) => events.push(x),
    });
    try {
      const tunnel = await talk(
        proxy.socketPath,
        `CONNECT 127.0.0.1:${e} HTTP/1.1\r\nHost: x\r\n\r\nping-through-tunnel`,
        /ping-through-tunnel/,
      );
      expect(tunnel).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nping-through-tunnel/);
      const plain = await talk(
        proxy.socketPath,
        `GET http://127.0.0.1:${w}/a?b=1 HTTP/1.1\r\nHost: 127.0.0.1:${w}\r\nConnection: close\r\n\r\n`,
      );
      expect(plain).toMatch(/^HTTP\/1\.1 200/);
      expect(plain).toContain('path /a?b=1');
      expect(via).toBe('1.1 abcd');
      const other = await talk(proxy.socketPath, `CONNECT 127.0.0.1:${w + 1} HTTP/1.1\r\n\r\n`);
      expect(other).toMatch(/^HTTP\/1\.1 403 Forbidden/);
      const direct = await talk(proxy.socketPath, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      expect(direct).toMatch(/^HTTP\/1\.1 400/);
      expect(events).toEqual([
        { allowed: true, method: 'CONNECT', target: `127.0.0.1:${e}` },
        { allowed: true, method: 'GET', target: `127.0.0.1:${w}` },
        { allowed: false, method: 'CONNECT', target: `127.0.0.1:${w + 1}`, why: 'not in land.network.allow' },
        { allowed: false, method: 'GET', target: '(malformed)', why: 'not a proxy request for an http:// URL' },
      ]);
    } finally {
      await proxy.close();
      await Promise.all([new Promise((r) => echo.close(r)), new Promise((r) => web.close(r))]);
    }
  });
});

describe.skipIf(NO_NETNS)('the relay seam', () => {
  it('forwards an in-sandbox loopback address to a host unix socket, NO_PROXY names it, and the proxy refuses what the list lacks', async () => {
    const dir = await mkdtemp(join(await tempDir('seam'), 'g-'));
    const gatewaySocket = join(dir, 'gateway.sock');
    let gatewayHits = 0;
    const gateway: Server = createServer((s) => {
      gatewayHits++;
      s.end('gateway says hi\n');
    });
    await new Promise<void>((resolve) => gateway.listen(gatewaySocket, resolve));
    const events: NetworkEvent[] = [];
    const base = join(await tempDir('seam-net'), 'cycle');
    const net = await openSandboxNetwork({
      base,
      allow: [],
      allowKey: 'lanes.network.allow',
      onEvent: (e) => events.push(e),
    });
    // Added after the network opened, as a runtime adds its gateway before its agent starts.
    net.forward({ host: GATEWAY_ADDRESS, port: 8080, socket: gatewaySocket });
    try {
      expect(net.env).toMatchObject({
        NO_PROXY: GATEWAY_ADDRESS,
        HTTPS_PROXY: 'http://127.0.0.1:3128',
        http_proxy: 'http://127.0.0.1:3128',
      });
      const script = [
        `node -e 'require("net").connect(8080,"${GATEWAY_ADDRESS}").pipe(process.stdout)'`,
        `node -e 'const s=require("net").connect(3128,"127.0.0.1");s.write("CONNECT example.com:443 HTTP/1.1\\r\\nHost: example.com:443\\r\\n\\r\\n");s.pipe(process.stdout)'`,
      ].join('; ');
      const plan = { hide: [], binds: net.binds, chdir: '/', inside: net.prefix };
      const [file, ...args] = sandboxArgv(plan, ['/bin/sh', '-c', script]);
      const out = await new Promise<string>((resolve, reject) =>
        execFile(file!, args, { env: { PATH: process.env.PATH!, ...net.env }, timeout: 30_000 }, (err, stdout, stderr) =>
          err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
        ),
      );
      expect(out).toContain('gateway says hi');
      expect(out).toContain('403 Forbidden');
      expect(out).toContain('example.com:443 is refused: not in lanes.network.allow');
      expect(gatewayHits).toBe(1);
      // The gateway's own connections skip the proxy: only the CONNECT is an event.
      expect(events).toEqual([{ allowed: false, method: 'CONNECT', target: 'example.com:443', why: 'not in lanes.network.allow' }]);
    } finally {
      await net.close();
      await new Promise<void>((resolve) => gateway.close(() => resolve()));
    }
  }, 60_000);
});
