// abcd's variables are parsed once (src/core/env.ts): defaults, empty values, and bad
// values refused by name only by the verb that needs them.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readEnvConfig } from '../../src/core/env.js';
import { UsageError } from '../../src/core/refusals.js';
import { cleanupTemp } from '../harness/git-env.js';
import { makeRemote } from '../harness/remote.js';
import { makeSession } from '../harness/session.js';

const facts = { tmpdir: '/var/tmp', hostname: 'box', homedir: '/home/p', cpus: 8 };

describe('EnvConfig', () => {
  afterAll(cleanupTemp);

  it('defaults from the computer when nothing is set, and empty counts as unset', () => {
    for (const env of [
      {},
      { ABCD_SESSION: '', ABCD_MACHINE_DIR: ' ', ABCD_GATE_SLOTS: '', ABCD_NETWORK_TIMEOUT: '', ABCD_JOB_DEADLINE: '', ABCD_LANE: '' },
    ]) {
      const c = readEnvConfig(env, facts);
      expect(c).toMatchObject({
        session: undefined,
        machineDir: '/var/tmp/abcd-machine',
        tmpDir: '/var/tmp',
        host: 'box',
        home: '/home/p',
        githubHosts: [],
        lane: undefined,
      });
      expect([c.gateSlots(), c.networkTimeoutMs(), c.jobDeadline()]).toEqual([4, undefined, undefined]);
    }
    expect(readEnvConfig({}, { ...facts, hostname: '', cpus: 1 })).toMatchObject({ host: 'unknown-host' });
    expect(readEnvConfig({}, { ...facts, cpus: 1 }).gateSlots()).toBe(1);
  });

  it('reads each variable that is set', () => {
    const c = readEnvConfig(
      {
        HOME: '/home/q',
        ABCD_SESSION: 'lane-3',
        ABCD_MACHINE_DIR: '/srv/abcd',
        ABCD_GATE_SLOTS: '3',
        ABCD_NETWORK_TIMEOUT: '90s',
        ABCD_JOB_DEADLINE: '2030-01-01T00:00:00Z',
        ABCD_GITHUB_HOSTS: ' ghe.example.com, ,git.corp ',
        ABCD_LANE: 'drain',
      },
      facts,
    );
    expect(c).toMatchObject({
      session: 'lane-3',
      machineDir: '/srv/abcd',
      home: '/home/q',
      githubHosts: ['ghe.example.com', 'git.corp'],
      lane: 'drain',
    });
    expect([c.gateSlots(), c.networkTimeoutMs(), c.jobDeadline()]).toEqual([3, 90_000, Date.parse('2030-01-01T00:00:00Z')]);
  });

  it('a malformed value is refused by name when asked for, not when read', () => {
    const c = readEnvConfig({ ABCD_GATE_SLOTS: 'lots', ABCD_NETWORK_TIMEOUT: 'soon', ABCD_JOB_DEADLINE: 'friday' }, facts);
    for (const [ask, name] of [
      [c.gateSlots, 'ABCD_GATE_SLOTS'],
      [c.networkTimeoutMs, 'ABCD_NETWORK_TIMEOUT'],
      [c.jobDeadline, 'ABCD_JOB_DEADLINE'],
    ] as const) {
      let thrown: unknown;
      try {
        ask();
      } catch (e) {
        thrown = e;
      }
      expect(thrown, name).toBeInstanceOf(UsageError);
      expect((thrown as Error).message, name).toContain(name);
    }
  });

  it('a bad ABCD_GATE_SLOTS stops abcd gate (its usage refusal, exit 125: gate keeps 1-123 for its command) but not abcd reserve, which has no use for it', async () => {
    const s = await makeSession((await makeRemote()).url, 'eve', { env: { ABCD_GATE_SLOTS: 'lots' } });
    expect((await s.abcd(['reserve', 'anything', '--json'])).code).toBe(0);
    const gate = await s.abcd(['gate', '--json', '--', 'true']);
    expect(gate.code).toBe(125);
    expect(gate.json.refusal).toMatchObject({ code: 'usage', data: { ABCD_GATE_SLOTS: 'lots' } });
  });

  it('cli/machine-gate.ts does not import commands/gate.ts (the runtime cycle is gone)', async () => {
    const text = await readFile(resolve(import.meta.dirname, '../../src/machine/gate/context.ts'), 'utf8');
    expect(text).not.toMatch(/from '\.\/commands\//);
  });
});
