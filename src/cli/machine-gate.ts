import { tmpdir } from 'node:os';
import type { Deps } from '../deps.js';
import { slotsArg } from './commands/gate.js';

/** This computer's load gate as the CLI finds it: folder, slot count, process deps. */
export async function machineGateContext(deps: Deps, slots?: unknown) {
  const [{ gateDir, machineDir }, { systemGateDeps }] = await Promise.all([
    import('../machine/gate-paths.js'),
    import('../machine/gate-process.js'),
  ]);
  return {
    dir: gateDir(machineDir(deps.env, tmpdir())),
    slots: slotsArg(slots, deps),
    gateDeps: systemGateDeps(deps.clock, process.pid),
  };
}
