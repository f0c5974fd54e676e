// Network namespaces for partition tests: a server namespace and host namespaces, each host
// joined to the server by its own veth pair on 10.231.<n>.0/24. Everything is created inside
// namespaces this file creates (the root namespace is never touched) and deleted by destroy().
import { execa } from 'execa';

export interface NetnsLab {
  server: string;
  hosts: string[];
  /** The server's address as host i (0-based) reaches it. */
  serverAddress(i: number): string;
  /** Cuts host i off: its only link is deleted, so every connection fails at once. */
  cut(i: number): Promise<void>;
  /** Gives host i its link back. */
  restore(i: number): Promise<void>;
  destroy(): Promise<void>;
}

async function ip(args: string[]): Promise<void> {
  const r = await execa('ip', args, { reject: false, timeout: 10_000 });
  if (r.exitCode !== 0) throw new Error(`ip ${args.join(' ')} failed: ${r.stderr}`);
}

/** Why namespaces cannot be used here, or undefined when they can (tried, not guessed). */
export async function netnsUnavailable(): Promise<string | undefined> {
  if (process.platform !== 'linux') return `network namespaces need Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'network namespaces need root (ip netns add)';
  const probe = `abcd-probe-${process.pid}`;
  const r = await execa('ip', ['netns', 'add', probe], { reject: false, timeout: 10_000 }).catch((e: Error) => ({
    exitCode: 1,
    stderr: e.message,
  }));
  if (r.exitCode !== 0) return `ip netns add is not allowed here: ${String(r.stderr).trim() || 'no reason given'}`;
  await execa('ip', ['netns', 'del', probe], { reject: false });
  return undefined;
}

export async function makeNetnsLab(hostCount: number): Promise<NetnsLab> {
  const tag = `abcd${process.pid}`;
  const server = `${tag}-srv`;
  const hosts = Array.from({ length: hostCount }, (_, i) => `${tag}-h${i + 1}`);
  const made: string[] = [];
  const destroy = async () => {
    // Deleting a namespace deletes its veth ends, and with them their peers.
    for (const ns of made.splice(0)) await execa('ip', ['netns', 'del', ns], { reject: false });
  };
  const link = async (i: number) => {
    const [s, h] = [`s${i + 1}`, `h${i + 1}`];
    await ip(['-n', server, 'link', 'add', s, 'type', 'veth', 'peer', 'name', h, 'netns', hosts[i]!]);
    await ip(['-n', server, 'addr', 'add', `10.231.${i + 1}.1/24`, 'dev', s]);
    await ip(['-n', hosts[i]!, 'addr', 'add', `10.231.${i + 1}.2/24`, 'dev', h]);
    await ip(['-n', server, 'link', 'set', s, 'up']);
    await ip(['-n', hosts[i]!, 'link', 'set', h, 'up']);
  };
  try {
    for (const ns of [server, ...hosts]) {
      await ip(['netns', 'add', ns]);
      made.push(ns);
      await ip(['-n', ns, 'link', 'set', 'lo', 'up']);
    }
    for (let i = 0; i < hostCount; i++) await link(i);
  } catch (e) {
    await destroy();
    throw e;
  }
  return {
    server,
    hosts,
    serverAddress: (i) => `10.231.${i + 1}.1`,
    cut: (i) => ip(['-n', server, 'link', 'del', `s${i + 1}`]),
    restore: (i) => link(i),
    destroy,
  };
}
