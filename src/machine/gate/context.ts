// Where this computer's load gate lives and how many slots it has.
import type { Deps } from '../../core/deps.js';
import { slotsFrom } from '../../core/env.js';

// gate.ts imports this file and never the other way round: `abcd gate` and land's checks
// share the gate's context here, and the slot count with it.

/** This computer's load gate as the CLI finds it: folder, slot count, process deps. */
export async function machineGateContext(deps: Deps, slots?: unknown) {
  const [{ gateDir }, { systemGateDeps }] = await Promise.all([import('./paths.js'), import('./process.js')]);
  return {
    dir: gateDir(deps.config.machineDir),
    slots: slotsArg(slots, deps),
    gateDeps: systemGateDeps(deps.clock, process.pid),
  };
}

/** --slots, else ABCD_GATE_SLOTS, else half the CPUs (at least one). */
export function slotsArg(value: unknown, deps: Deps): number {
  return value !== undefined ? slotsFrom(String(value), '--slots', 1) : deps.config.gateSlots();
}
