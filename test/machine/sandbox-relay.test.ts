// The relay a sandbox starts first: socat under a shell where socat is installed, the node that
// runs abcd where it is not. Either way the command gets the sandbox's stdin and stdout, its exit
// status is the sandbox's, its argv arrives byte for byte, a connection to a forwarded loopback
// address reaches the host's socket, and no relay process outlives the sandbox.
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxArgv } from '../../src/machine/sandbox/bwrap.js';
import { openSandboxNetwork, type SandboxNetwork } from '../../src/machine/sandbox/sandbox-network.js';
import { relayLine } from '../../src/machine/sandbox/network-log.js';
import { procNetAddress } from '../../src/machine/sandbox/socat-relay.js';
import { cleanupTemp, tempDir } from '../harness/git-env.js';

const NO_NETNS = (() => {
  try {
    execFileSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-net', '--', 'true'], { stdio: 'ignore', timeout: 10_000 });
    return undefined;
  } catch {
    return 'bubblewrap cannot make a network namespace here (no unprivileged user namespaces)';
  }
})();
const HAS_SOCAT = (() => {
  try {
    execFileSync('sh', ['-c', 'command -v socat'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const NODE = process.execPath;
const GATEWAY = { host: '127.0.0.2', port: 4141 };
// A PATH with the system's programs but no socat on it.
const NO_SOCAT_PATH = '/nonexistent-abcd-bin';

afterAll(cleanupTemp);

/** A unix socket server that answers each connection with `echo:` and what it was sent. */
async function echoServer(path: string): Promise<Server> {
  const server = createServer({ allowHalfOpen: true }, (s) => {
    const got: Buffer[] = [];
    s.on('data', (d: Buffer) => got.push(d));
    s.on('end', () => s.end(`echo:${Buffer.concat(got).toString()}`));
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return server;
}

/** Runs argv in a sandbox with the network's relay first; stdin written and closed. */
function runIn(
  dir: string,
  net: SandboxNetwork,
  argv: string[],
  stdin = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const plan = { hide: [], binds: [{ path: dir, writable: true }, ...net.binds], chdir: dir, inside: net.prefix };
  const full = sandboxArgv(plan, argv);
  return new Promise((resolve, reject) => {
    const child = spawn(full[0]!, full.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/**
 * The processes whose argv names `needle` (the test's own socket path: only its relays would),
 * once they are gone or after 5 s. The command's end ends bubblewrap; its pid 1 then dies with it
 * (--die-with-parent) and the kernel kills what is left in the pid namespace a moment later.
 */
async function leftNaming(needle: string): Promise<string[]> {
  for (let i = 0; i < 100; i++) {
    if (processesNaming(needle).length === 0) return [];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return processesNaming(needle);
}

function processesNaming(needle: string): string[] {
  const hits: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmd.includes(needle) && Number(pid) !== process.pid) hits.push(`${pid}: ${cmd.replaceAll('\0', ' ').slice(0, 200)}`);
    } catch {
      continue;
    }
  }
  return hits;
}

// Inside: sends its stdin to the gateway's address, prints the answer, exits with its first argument.
const CLIENT = [
  "const s = require('node:net').connect(4141, '127.0.0.2');",
  'process.stdin.pipe(s);',
  "s.on('data', (d) => process.stdout.write(d));",
  "s.on('close', () => process.exit(Number(process.argv[1])));",
].join(' ');

const HOSTILE = ['a b', "it's", '"$(touch pwned)"', '`id`', '$HOME', 'line\none\n', ';exit 9', '-c', '', '\\', '*', '--'];

describe.skipIf(NO_NETNS)('the relay a sandbox starts', () => {
  const cases: Array<{ relay: 'socat' | 'node'; path: string | undefined }> = [
    ...(HAS_SOCAT ? [{ relay: 'socat' as const, path: undefined }] : []),
    { relay: 'node', path: NO_SOCAT_PATH },
  ];
  for (const c of cases) {
    describe(`${c.relay}`, () => {
      const open = async () => {
        const dir = await tempDir(`relay-${c.relay}`);
        const sock = join(dir, 'gw', 'gateway.sock');
        execFileSync('mkdir', ['-m', '0700', join(dir, 'gw')]);
        const server = await echoServer(sock);
        const net = await openSandboxNetwork({
          base: join(dir, 'cycle'),
          node: NODE,
          ...(c.path ? { path: c.path } : {}),
          allow: [],
          allowKey: 'test',
          forwards: [{ ...GATEWAY, socket: sock }],
        });
        const close = async () => {
          await net.close();
          await new Promise<void>((resolve) => server.close(() => resolve()));
        };
        return { dir, sock, net, close };
      };

      it('is the one chosen, and the run log line names it', async () => {
        const { net, close } = await open();
        try {
          expect(net.relay).toBe(c.relay);
          expect(net.prefix[0]).toBe(c.relay === 'socat' ? '/bin/sh' : NODE);
          expect(relayLine(net.relay)).toContain(`relay ${c.relay}`);
        } finally {
          await close();
        }
      });

      it("carries stdin and stdout, a connection to the host's socket, and the command's exit status", async () => {
        const { dir, net, close } = await open();
        try {
          const r = await runIn(dir, net, [NODE, '-e', CLIENT, '7'], 'over the relay');
          expect(r.stderr).toBe('');
          expect(r.stdout).toBe('echo:over the relay');
          expect(r.code).toBe(7);
          const cat = await runIn(dir, net, ['/bin/cat'], 'stdin\nto stdout\n');
          expect(cat).toEqual({ code: 0, stdout: 'stdin\nto stdout\n', stderr: '' });
        } finally {
          await close();
        }
      });

      it('hands the command its argv byte for byte, and no shell reads it', async () => {
        const { dir, net, close } = await open();
        try {
          const r = await runIn(dir, net, [NODE, '-e', 'process.stdout.write(JSON.stringify(process.argv.slice(1)))', ...HOSTILE]);
          expect(r.code).toBe(0);
          expect(JSON.parse(r.stdout)).toEqual(HOSTILE);
          expect(readdirSync(dir)).not.toContain('pwned');
          const sh = await runIn(dir, net, ['/bin/sh', '-c', 'printf "%s|" "$@"', 'sh', ...HOSTILE]);
          expect(sh.stdout).toBe(HOSTILE.map((a) => `${a}|`).join(''));
        } finally {
          await close();
        }
      });

      it('leaves no relay process running once the command ends, by exit or by a signal', async () => {
        const { dir, sock, net, close } = await open();
        try {
          const r = await runIn(dir, net, ['/bin/sh', '-c', 'exit 0']);
          expect(r.code).toBe(0);
          expect(await leftNaming(sock)).toEqual([]);
          // A connection still open when the command dies: its relay child goes too.
          const k = await runIn(dir, net, [
            NODE,
            '-e',
            `${CLIENT.replace("s.on('close'", "s.on('x'")} setTimeout(() => process.kill(process.pid, 'SIGKILL'), 300);`,
            '0',
          ]);
          expect(k.code).toBe(128 + 9);
          expect(await leftNaming(sock)).toEqual([]);
        } finally {
          await close();
        }
      });
    });
  }
});

describe('procNetAddress', () => {
  it('writes the address as /proc/net/tcp shows it on either byte order', () => {
    expect(procNetAddress('127.0.0.1', 3128, 'LE')).toBe('0100007F:0C38');
    expect(procNetAddress('127.0.0.2', 4141, 'BE')).toBe('7F000002:102D');
  });
});
