// The relay when socat is installed: `/bin/sh` first inside the sandbox starts one socat per
// forward in the background (listening on the forward's loopback address, carrying each
// connection to its unix socket), waits until the sandbox's /proc/net/tcp shows every one of them
// listening, and then execs the command, which so keeps the shell's pid: its exit status and its
// signals are the sandbox's. The socats are left behind as its children; when the command ends,
// bubblewrap's pid 1 ends and the pid namespace takes them with it. A shell and a socat start in
// a few milliseconds where a node relay takes one node start-up and a spawn.
//
// Nothing from the command reaches the shell's text: the command, the socat path and every
// forward are positional arguments ("$@"), never part of the script.
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { endianness } from 'node:os';
import { unlessSystemError } from '../../core/best-effort.js';
import type { LoopbackForward } from './relay.js';

// How long the shell waits for its socats to listen before it gives up (exit 70).
const LISTEN_DEADLINE_CS = 1000;
// What socat's address syntax reads as itself: a path with any other character (`:`, `,`, `!`,
// quotes, spaces) goes to the node relay instead of being escaped.
const PLAIN_PATH = /^\/[A-Za-z0-9._/+@%=~-]+$/;
const found = new Map<string, string | undefined>();

// $1 socat, $2 the number of forwards, then four words each (host, port, socket, the
// /proc/net/tcp local address it listens on), then the command.
const SCRIPT = [
  's=$1; n=$2; shift 2; pids=; pats=',
  'while [ "$n" -gt 0 ]; do',
  // -t: after one side's end, wait as long as the other takes (a half-closed request's answer).
  '  "$s" -t 86400 TCP4-LISTEN:"$2",bind="$1",fork,reuseaddr UNIX-CONNECT:"$3" </dev/null >/dev/null 2>&1 &',
  '  pids="$pids $!"; pats="$pats $4"; shift 4; n=$((n - 1))',
  'done',
  // /proc/uptime in hundredths of a second, read without a process.
  'now() { read -r up _ </proc/uptime; t=$((${up%.*} * 100 + 1${up#*.} - 100)); }',
  `now; end=$((t + ${LISTEN_DEADLINE_CS}))`,
  'while :; do',
  '  left=',
  '  for p in $pats; do',
  '    hit=',
  '    while read -r _ l _ st _; do if [ "$l $st" = "$p 0A" ]; then hit=1; break; fi; done </proc/net/tcp',
  '    [ -n "$hit" ] || left="$left $p"',
  '  done',
  '  pats=$left; [ -z "$pats" ] && break',
  '  for p in $pids; do',
  '    if ! read -r _ _ st _ 2>/dev/null </proc/$p/stat || [ "$st" = Z ]; then',
  '      echo "abcd relay: socat ended before it listened" >&2; exit 70',
  '    fi',
  '  done',
  `  now; if [ "$t" -ge "$end" ]; then echo "abcd relay: socat did not listen within ${LISTEN_DEADLINE_CS / 100} s" >&2; exit 70; fi`,
  'done',
  'exec "$@"',
].join('\n');

/** socat's real path on `path` (a PATH value), or undefined; looked up once per PATH per process. */
export function findSocat(path: string): string | undefined {
  if (found.has(path)) return found.get(path);
  let hit: string | undefined;
  for (const dir of path.split(':')) {
    if (!dir.startsWith('/')) continue;
    try {
      const p = `${dir}/socat`;
      accessSync(p, constants.X_OK);
      if (!statSync(p).isFile()) continue;
      hit = realpathSync(p);
      break;
    } catch (e) {
      // Not in this folder, or not executable by this user: the next PATH entry may hold it.
      unlessSystemError(undefined)(e);
    }
  }
  found.set(path, hit);
  return hit;
}

/** Whether socat can be handed these forwards as they are (else the node relay carries them). */
export function socatCanCarry(forwards: readonly LoopbackForward[]): boolean {
  return forwards.every(
    (f) => /^127(\.\d{1,3}){3}$/.test(f.host) && Number.isInteger(f.port) && f.port > 0 && f.port < 65536 && PLAIN_PATH.test(f.socket),
  );
}

/** How /proc/net/tcp writes an IPv4 address and port: the address as the host's 32-bit word, in hex. */
export function procNetAddress(host: string, port: number, order: 'LE' | 'BE' = endianness()): string {
  const bytes = host.split('.').map((b) => Number(b).toString(16).toUpperCase().padStart(2, '0'));
  if (order === 'LE') bytes.reverse();
  return `${bytes.join('')}:${port.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The socat relay's argv before the command it execs. */
export function socatRelayPrefix(socat: string, forwards: readonly LoopbackForward[]): string[] {
  const words = forwards.flatMap((f) => [f.host, String(f.port), f.socket, procNetAddress(f.host, f.port)]);
  return ['/bin/sh', '-c', SCRIPT, 'abcd-relay', socat, String(forwards.length), ...words];
}
