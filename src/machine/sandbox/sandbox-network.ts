// The network of one sandbox: its own namespace with a loopback only (bwrap --unshare-net), and
// the few ways out abcd gives it, each a loopback address inside whose connections the relay
// carries to a unix socket on the host. One of them is always the egress proxy (127.0.0.1:3128,
// named by HTTPS_PROXY / HTTP_PROXY); others plug in through `forwards` (the seam a model
// gateway uses: it listens on a unix socket of its own and is reached inside at GATEWAY_ADDRESS,
// the one address NO_PROXY names, so its requests skip the proxy).
import { mkdtemp, rm } from 'node:fs/promises';
import type { Bind } from './bwrap.js';
import { startEgressProxy, type NetworkEvent } from './egress-proxy.js';
import { parseAllowEntry, type AllowEntry } from './network-allow.js';
import { relayPrefix, type LoopbackForward } from './relay.js';
import { findSocat, socatCanCarry, socatRelayPrefix } from './socat-relay.js';
import type { RelayKind } from './network-log.js';

export type { NetworkEvent } from './egress-proxy.js';
export type { LoopbackForward } from './relay.js';

/** Where the proxy listens inside the sandbox (squid's port: what a reader expects of a proxy). */
export const PROXY_ADDRESS = { host: '127.0.0.1', port: 3128 } as const;
/** The in-sandbox address reserved for abcd's model gateway: the only one that skips the proxy. */
export const GATEWAY_ADDRESS = '127.0.0.2';
export interface SandboxNetwork {
  /** What the sandbox must show: the relay's program (socat, the node), each socket's folder (read-only). */
  readonly binds: Bind[];
  /** The relay and its forwards, before the sandbox's command. */
  readonly prefix: string[];
  /** Which relay `prefix` starts. */
  readonly relay: RelayKind;
  /** HTTPS_PROXY, HTTP_PROXY, their lowercase forms and NO_PROXY. */
  readonly env: Record<string, string>;
  /** Lets the proxy reach one more `host:port` (a runtime's model API); a malformed one is ignored. */
  allow(endpoint: string): void;
  /**
   * Forwards one more in-sandbox loopback address to a host unix socket, in every sandbox
   * started from now on (the gateway's seam: a runtime adds its gateway before its agent starts).
   * The socket's folder is bound in read-only: keep it private to this sandbox.
   */
  forward(f: LoopbackForward): void;
  close(): Promise<void>;
}

export interface SandboxNetworkOptions {
  /** The private folder is made as `<base>-net-XXXXXX` (0700), beside the sandbox's own folder. */
  base: string;
  /** The node binary that runs abcd: the relay's interpreter (default: this process's). */
  node?: string;
  /** The PATH socat is looked up on (default: this process's); without socat the node relay runs. */
  path?: string;
  /** The allow-list: `host:port` and `*.domain:port` entries (checked by the config's schema). */
  allow: readonly string[];
  /** The config key that holds that list, for a refusal's text. */
  allowKey: string;
  /** More in-sandbox loopback addresses and the host sockets they reach (the gateway's seam). */
  forwards?: readonly LoopbackForward[];
  onEvent?: (e: NetworkEvent) => void;
}

export async function openSandboxNetwork(o: SandboxNetworkOptions): Promise<SandboxNetwork> {
  const entries: AllowEntry[] = o.allow.map(parseAllowEntry).filter((e): e is AllowEntry => e !== undefined);
  const node = o.node ?? process.execPath;
  const socat = findSocat(o.path ?? process.env.PATH ?? '/usr/bin:/bin');
  const dir = await mkdtemp(`${o.base}-net-`);
  try {
    const proxy = await startEgressProxy({
      dir,
      allow: entries,
      allowKey: o.allowKey,
      onEvent: (e) => o.onEvent?.(e),
    });
    const forwards: LoopbackForward[] = [{ ...PROXY_ADDRESS, socket: proxy.socketPath }, ...(o.forwards ?? [])];
    const url = `http://${PROXY_ADDRESS.host}:${PROXY_ADDRESS.port}`;
    // Read when a sandbox starts: a forward added before then is in it.
    const folders = () => [...new Set(forwards.map((f) => f.socket.slice(0, f.socket.lastIndexOf('/'))))];
    // socat, when it can carry every forward's address as it is written; the node otherwise.
    const relay = (): RelayKind => (socat !== undefined && socatCanCarry(forwards) ? 'socat' : 'node');
    return {
      // The node stays bound with socat too: what runs inside may be a node program of abcd's.
      get binds() {
        return [{ path: node }, ...(socat ? [{ path: socat }] : []), ...folders().map((path) => ({ path }))];
      },
      get prefix() {
        return relay() === 'socat' ? socatRelayPrefix(socat!, forwards) : relayPrefix(node, forwards);
      },
      get relay() {
        return relay();
      },
      forward(f) {
        if (forwards.some((x) => x.host === f.host && x.port === f.port)) throw new Error(`${f.host}:${f.port} is forwarded already`);
        forwards.push(f);
      },
      env: { HTTPS_PROXY: url, HTTP_PROXY: url, https_proxy: url, http_proxy: url, NO_PROXY: GATEWAY_ADDRESS, no_proxy: GATEWAY_ADDRESS },
      allow(endpoint) {
        const e = parseAllowEntry(endpoint);
        if (e && !entries.some((x) => x.host === e.host && x.port === e.port && x.wildcard === e.wildcard)) entries.push(e);
      },
      close: async () => {
        await proxy.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
}
