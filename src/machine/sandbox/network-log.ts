// What a sandbox's network reports, as lines and counts: kept apart from the network itself, whose
// proxy loads node:http, so that a verb showing these lines loads only this.
import type { NetworkEvent } from './egress-proxy.js';

// How many distinct hosts a cycle's result names; the counts cover the rest.
const MAX_HOSTS = 16;

/** What a sandbox's connections came to: the cycle's result carries it. */
export interface NetworkCounts {
  allowed: number;
  refused: number;
  /** The distinct `host:port`s asked for, allowed or refused, in the order first seen. */
  hosts: string[];
}

/** Which relay a sandbox starts: socat under a shell when socat is installed, else the node that runs abcd. */
export type RelayKind = 'socat' | 'node';

/** Counts connections as they are reported (an agent's and its checks' into one cycle's). */
export class NetworkTally {
  private readonly c: NetworkCounts = { allowed: 0, refused: 0, hosts: [] };

  add(e: NetworkEvent): void {
    if (e.allowed) this.c.allowed++;
    else this.c.refused++;
    if (this.c.hosts.length < MAX_HOSTS && !this.c.hosts.includes(e.target)) this.c.hosts.push(e.target);
  }

  counts(): NetworkCounts {
    return { ...this.c, hosts: [...this.c.hosts] };
  }
}

/** One line of the run's log for a connection. */
export function networkLine(e: NetworkEvent): string {
  return `[abcd] network: ${e.allowed ? 'allowed' : 'refused'} ${e.method} ${e.target}${e.why ? ` (${e.why})` : ''}\n`;
}

/** The run log's line saying which relay a sandbox's network starts with. */
export function relayLine(relay: RelayKind): string {
  return `[abcd] network: relay ${relay === 'socat' ? 'socat' : 'node (socat is not installed)'}\n`;
}
