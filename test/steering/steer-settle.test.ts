// When a lane settles instead of steering: the cap per run, and too little time
// left in the agent's window; a re-invoked agent's time ends before the run's deadline less
// what the cycle still needs. Pure: the clock is passed in.
import { describe, expect, it } from 'vitest';
import { reinvokeTimeout, whyNotSteer } from '../../src/lanes/guards/steer-settings.js';

const settings = { max: 2, minRemainingMs: 300_000 };

describe('steer settle', () => {
  it('steers under the cap with time left; settles at the cap or with less than the minimum left', () => {
    expect(whyNotSteer({ spent: 0, now: 0, windowEnd: 300_000, settings })).toBeUndefined();
    expect(whyNotSteer({ spent: 1, now: 0, windowEnd: 1_800_000, settings })).toBeUndefined();
    expect(whyNotSteer({ spent: 2, now: 0, windowEnd: 1_800_000, settings })).toMatch(/cap of 2/);
    expect(whyNotSteer({ spent: 0, now: 1, windowEnd: 300_000, settings })).toMatch(/less than 300s/);
    expect(whyNotSteer({ spent: 0, now: 0, windowEnd: 1_800_000, settings: { max: 0, minRemainingMs: 1 } })).toMatch(/cap of 0/);
  });

  it('a re-invocation gets its own timeout, cut to end before the deadline less the reserve', () => {
    expect(reinvokeTimeout({ now: 0, deadline: Infinity, agentTimeoutMs: 1_800_000, reserveMs: 60_000 })).toBe(1_800_000);
    expect(reinvokeTimeout({ now: 1000, deadline: 601_000, agentTimeoutMs: 1_800_000, reserveMs: 60_000 })).toBe(540_000);
    const late = reinvokeTimeout({ now: 0, deadline: 200_000, agentTimeoutMs: 1_800_000, reserveMs: 60_000 });
    expect(whyNotSteer({ spent: 0, now: 0, windowEnd: late, settings })).toMatch(/less than/);
  });
});
