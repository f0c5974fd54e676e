// Steering an item that a session which is no lane holds (a plain reservation) says so: no
// lane polls for the request; it waits for the next lane that takes the item.
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { remoteWithItems } from '../harness/lanes.js';
import { makeSession } from '../harness/session.js';

describe('a steer on an item no lane holds', () => {
  afterAll(cleanupTemp);

  it('held by a session that is no lane: the answer says the next lane that takes the item gets it', async () => {
    const remote = await remoteWithItems([{ slug: 'page', status: 'done' }]);
    const env = { ABCD_GATE_SLOTS: '4' };
    const person = await makeSession(remote.url, 'person', { person: 'me@example.com', env });
    const holder = await makeSession(remote.url, 'holder', { person: 'me@example.com', env });
    expect((await holder.abcd(['reserve', 'page', '--reopen', '--json'])).json).toMatchObject({ ok: true });
    const steered = await person.abcd(['steer', 'page', 'rewrite the page']);
    expect(steered.code).toBe(0);
    expect(steered.stdout).toMatch(/no lane holds it now \(.*holder.* is no lane\): it will be delivered to the next lane that takes page/);
    const json = await person.abcd(['steer', 'page', 'and the footer', '--json']);
    expect(json.json).toMatchObject({ ok: true, laneHolds: false, heldBy: expect.stringContaining('holder') });
  }, 60_000);
});
