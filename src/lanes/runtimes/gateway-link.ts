// A built-in runtime's link to abcd's model gateway (machine/gateway): the gateway is started
// for the cycle in a private folder, reached inside the sandbox at GATEWAY_ADDRESS, and the
// agent is given its address and a placeholder key in place of the real ones. What the gateway
// saw (each request, the usage the API answered) is what the cycle counts.
import { mkdtemp, rm } from 'node:fs/promises';
import { addUsage, emptyUsage, type CycleUsage } from '../../machine/budget/usage.js';
import {
  startModelGateway,
  type DialectName,
  type GatewayCredential,
  type GatewayEvent,
  type ModelGateway,
} from '../../machine/gateway/model-gateway.js';
import { GATEWAY_ADDRESS } from '../../machine/sandbox/sandbox-network.js';
import type { CycleAgent } from './runtime.js';

/** What the agent is given for its key: a value that opens nothing anywhere. */
export const PLACEHOLDER_KEY = 'abcd-model-gateway-placeholder';
// The gateway's port inside the sandbox's own loopback (its network namespace has nothing else on it).
const GATEWAY_PORT = 4141;

export interface GatewayLink {
  /** The base URL the agent is given. */
  readonly baseUrl: string;
  /** The real API the gateway sends to: what a failure names. */
  readonly upstream: URL;
  /** What the API's answers said this cycle used (`source: 'api'`), summed over its requests. */
  usage(): CycleUsage;
  /** Why the gateway stopped a request for the budget, if it did. */
  budgetStop(): string | undefined;
  close(): Promise<void>;
}

export interface GatewayLinkOptions {
  dialect: DialectName;
  upstream: URL;
  credential: GatewayCredential;
}

/** Starts the cycle's gateway and forwards the sandbox's GATEWAY_ADDRESS to it. Needs the sandbox's network. */
export async function linkGateway(agent: CycleAgent, o: GatewayLinkOptions): Promise<GatewayLink> {
  const network = agent.network;
  if (!network) throw new Error('a model gateway needs the sandbox network it is forwarded into');
  const dir = await mkdtemp(`${agent.cycleDir}-gw-`);
  let sum = { ...emptyUsage(), source: 'api' as const };
  let stopped: string | undefined;
  let gateway: ModelGateway;
  try {
    gateway = await startModelGateway({
      dir,
      dialect: o.dialect,
      upstream: o.upstream,
      credential: o.credential,
      admit: () => agent.admitModel?.(sum) ?? { ok: true },
      onEvent: (e) => {
        if (e.usage) sum = { ...addUsage(sum, e.usage), source: 'api' };
        if (e.outcome === 'budget') stopped ??= e.why;
        agent.onOutput?.(gatewayLine(e));
      },
    });
    network.forward({ host: GATEWAY_ADDRESS, port: GATEWAY_PORT, socket: gateway.socketPath });
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    baseUrl: gateway.agentBaseUrl(GATEWAY_ADDRESS, GATEWAY_PORT),
    upstream: o.upstream,
    usage: () => ({ ...sum }),
    budgetStop: () => stopped,
    close: async () => {
      await gateway.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** One line of the run's log for a model request: never a header, a body or the key. */
export function gatewayLine(e: GatewayEvent): string {
  const u = e.usage ? ` (${e.usage.inputTokens} in, ${e.usage.outputTokens} out, ${e.usage.cacheReadTokens} cache read)` : '';
  const why = e.why ? `: ${e.why}` : '';
  return `[abcd] model: ${e.outcome} ${e.method} ${e.path} ${e.status}${u}${why}\n`;
}
