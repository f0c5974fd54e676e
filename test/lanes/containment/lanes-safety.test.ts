// Unattended safety: the agent cannot read the person's secrets nor inherit a token; a lane
// killed with -9 takes its agent with it and another drain builds the item once; an empty
// budget stops new cycles.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../../harness/git-env.js';
import {
  agentProcesses,
  COMMITTING_AGENT,
  itemStatus,
  laneSession,
  mainWorkSubjects,
  processesWith,
  remoteWithItems,
  laneRun,
} from '../../harness/lanes.js';
import { ABCD_BIN } from '../../harness/session.js';

async function until(what: string, ok: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const CANARY = 'canary-3f9a1c';

describe('lane safety', () => {
  afterAll(cleanupTemp);

  it("the agent reads none of the person's secrets and no token reaches its environment", async () => {
    const remote = await remoteWithItems([{ slug: 'peek' }], { lanes: { env: ['MODEL_KEY'] } });
    const s = await laneSession(remote, 'careful', {
      GH_TOKEN: `${CANARY}-gh-token`,
      ABCD_SECRET_THING: `${CANARY}-abcd`,
      MODEL_KEY: 'model-key-ok',
    });
    const home = s.env.HOME!;
    const secrets = {
      abcdConfig: join(home, '.config/abcd/app.json'),
      gitCredentials: join(home, '.git-credentials'),
      ssh: join(home, '.ssh/id_ed25519'),
      gh: join(home, '.config/gh/hosts.yml'),
    };
    for (const [name, path] of Object.entries(secrets)) {
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, `${CANARY}-${name}\n`);
    }
    const marker = `peek-marker-${process.pid}-${Date.now()}`;
    const reads = Object.values(secrets)
      .map((p) => `cat ${p} 2>&1`)
      .join('; ');
    const agent = `{ ${reads}; env; } > seen.txt 2>&1; sleep 3; git add seen.txt && git commit -qm peek # ${marker}`;
    const run = s.abcd(['build', 'peek', '--json', '--sandbox', 'bwrap', '--agent', agent], { timeoutMs: 90_000 });
    const environs: string[] = [];
    await until('the agent to run', async () => {
      for (const pid of await processesWith(marker)) {
        const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
        if (cmd.startsWith('/bin/sh')) environs.push(await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => ''));
      }
      return environs.some((e) => e.length > 0);
    });
    const r = await run;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const env = environs.find((e) => e.length > 0)!;
    expect(env).not.toContain(CANARY);
    expect(env).toContain('MODEL_KEY=model-key-ok');
    expect(env).toContain('ABCD_ITEM=local:item:peek');
    const seen = (await execa('git', ['-C', remote.dir, 'show', 'main:seen.txt'])).stdout;
    expect(seen).not.toContain(CANARY);
    expect(seen).toMatch(/No such file/);
  }, 120_000);

  it('kill -9 of a drain mid-cycle: its agent dies too; after expiry plus the delay another drain builds the item once', async () => {
    const remote = await remoteWithItems([{ slug: 'crash' }]);
    const a = await laneSession(remote, 'doomed');
    expect((await a.abcd(['settings', 'takeover-delay', '1s'])).code).toBe(0);
    const marker = `crash-marker-${process.pid}-${Date.now()}`;
    const doomed = execa(process.execPath, [ABCD_BIN, 'drain', '--ttl', '3s', '--agent', `sleep 600 # ${marker}`], {
      cwd: a.dir,
      env: a.env,
      extendEnv: false,
      reject: false,
    });
    await until('the agent to start', async () => (await agentProcesses(marker)).length > 0);
    doomed.kill('SIGKILL');
    await doomed;
    await until('the agent to die with its lane', async () => (await processesWith(marker)).length === 0, 10_000);
    const b = await laneSession(remote, 'heir');
    const r = await b.abcd(['drain', '--json', '--lifecycle', 'poll', '--idle', '3s', '--ttl', '5s', '--agent', COMMITTING_AGENT], {
      timeoutMs: 90_000,
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(laneRun(r).record.cycles).toMatchObject([{ item: 'crash', outcome: 'landed' }]);
    expect((await mainWorkSubjects(remote)).filter((x) => x.startsWith('agent: '))).toEqual(['agent: local:item:crash']);
  }, 120_000);

  it('an empty budget stops new cycles with budget-exhausted and marks nothing done', async () => {
    const remote = await remoteWithItems([{ slug: 'first' }, { slug: 'second' }]);
    const s = await laneSession(remote, 'spender');
    expect((await s.abcd(['budget', 'set', '0'])).code).toBe(0);
    const r = await s.abcd(['drain', '--json', '--agent', COMMITTING_AGENT]);
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.json.refusal.code).toBe('budget-exhausted');
    expect(r.json.refusal.data.result.record.cycles).toEqual([]);
    expect(await itemStatus(remote, 'first')).toBe('ready');
    // A pool that one cycle's reported usage empties: that cycle finishes, no new one starts.
    expect((await s.abcd(['budget', 'set', '100'])).code).toBe(0);
    const spend = `echo '{"tokens":150}' >> "$ABCD_USAGE"; ${COMMITTING_AGENT}`;
    const r2 = await s.abcd(['drain', '--json', '--agent', spend]);
    expect(r2.code, r2.stdout + r2.stderr).toBe(3);
    expect(r2.json.refusal.code).toBe('budget-exhausted');
    expect(r2.json.refusal.data.result.record.cycles).toHaveLength(1);
    expect(r2.json.refusal.data.result.record.usage).toBe(150);
    const statuses = [await itemStatus(remote, 'first'), await itemStatus(remote, 'second')].sort();
    expect(statuses).toEqual(['done', 'ready']);
  }, 120_000);
});
