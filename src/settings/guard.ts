// Lanes never write the person's settings (DESIGN "Settings are the person's alone"). A lane
// sets LANE_ENV in its own environment and in every process it starts, or passes `lane: true`
// when it calls the verb in-process; either way the write is refused before anything is read.
import { UnsafeEnvironment } from '../core/refusals.js';

/** Set (to the lane's name or "1") by a build or drain lane for itself and its children. */
export const LANE_ENV = 'ABCD_LANE';

/** Refuses (exit 7) a settings write made by or under a lane. */
export function refuseSettingsWriteFromLane(o: { laneName: string | undefined; lane?: boolean }): void {
  const lane = o.laneName;
  if (!o.lane && !lane) return;
  throw new UnsafeEnvironment(
    `a lane may not change the person's settings (${LANE_ENV}${lane ? `=${lane}` : ''}); nothing was written. ` +
      'Only the person changes them, from their own session: abcd settings <key> <value>.',
    { reason: 'lane-writes-settings', ...(lane ? { lane } : {}) },
  );
}
