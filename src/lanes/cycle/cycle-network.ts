// A sandboxed cycle's network: the agent's only way out of its sandbox's loopback is the egress
// proxy, with this cycle's allow-list; the agent's environment names it and the cycle's log says
// how it is relayed. An unsandboxed cycle has none.
import { openSandboxNetwork, type SandboxNetwork } from '../../machine/sandbox/sandbox-network.js';
import { relayLine } from '../../machine/sandbox/network-log.js';
import type { RepoConfig } from '../../repo/config.js';
import type { RunContext } from './context.js';
import type { CycleLog } from './cycle-log.js';
import type { CycleWatch } from './cycle-watch.js';

export async function openCycleNetwork(
  ctx: RunContext,
  o: { cycleDir: string; config: RepoConfig; env: Record<string, string>; watch: CycleWatch; log: CycleLog },
): Promise<SandboxNetwork | undefined> {
  if (ctx.sandbox !== 'bwrap') return undefined;
  const w = o.watch;
  const net = await openSandboxNetwork({
    base: o.cycleDir,
    ...(ctx.repo.deps.self ? { node: ctx.repo.deps.self.node } : {}),
    allow: o.config.lanes?.network?.allow ?? [],
    allowKey: 'lanes.network.allow',
    onEvent: (e) => w.network(e),
  });
  Object.assign(o.env, net.env);
  o.log.write(relayLine(net.relay));
  return net;
}
