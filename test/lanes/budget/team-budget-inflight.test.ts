// The team pool checked in flight: two computers (clones with their own machine folders) each run
// the real Claude Code against one scripted model server whose agents would never stop on their
// own. Every model request passes abcd's model gateway, which holds the cycle's share of the team
// pool on the remote ledger; once the pool has none left to hold, both agents are cut off in the
// middle of their turns, within the bound ADR 0126 states, and every token is counted once. A
// cycle's later turn holds a share of its own the same way.
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { cleanupTemp } from '../../harness/git-env.js';
import { itemStatus, laneSession, remoteWithItems } from '../../harness/lanes.js';
import { AnthropicStub, answer, tool, toolStep, workingDirectory, type StubUsage } from '../../harness/model-server-anthropic.js';
import { LEDGER_REF, remoteLedger, signingPerson } from '../../harness/team-budget.js';
import { until } from '../../harness/steer.js';

const CLAUDE = join(import.meta.dirname, '..', '..', '..', 'node_modules', '.bin', 'claude');
// Each answer reports this many tokens; each cycle reserves two answers' worth at its start.
const PER_ANSWER = 1000;
const RESERVE = 2000;
const LIMIT = 9000;

let stub: AnthropicStub;
beforeEach(async () => {
  stub = await AnthropicStub.start();
});
afterEach(async () => {
  await stub.close();
});
afterAll(cleanupTemp);

const tokens = (u: Required<StubUsage>) => u.input + u.output + u.cacheRead + u.cacheWrite;

/** A script's conversation once it has served one, else undefined. */
function conversationOf(s: { conversation: () => string }): string | undefined {
  try {
    return s.conversation();
  } catch {
    return undefined;
  }
}

describe('the team pool in flight', () => {
  it('two computers whose agents never stop: the gateway cuts both off once the pool is held, within limit + one reservation + one answer each', async () => {
    const remote = await remoteWithItems([{ slug: 'east' }, { slug: 'west' }], {
      lanes: { claude: { program: CLAUDE, model: 'claude-sonnet-4-5' }, cycleReserve: RESERVE, agentTimeout: '150s' },
    });
    const owner = await signingPerson(remote);
    const set = await owner.abcd(['budget', 'set', String(LIMIT), '--team', '--json']);
    expect(set.code, set.stdout + set.stderr).toBe(0);
    // Each agent runs one more command after every answer, for ever: only the budget ends it. The
    // first answers wait until both agents asked (both cycles hold their reservation by then), so
    // neither computer can spend the whole pool before the other's cycle starts.
    const step = () => toolStep(tool.bash('echo step >> steps.txt'), { input: PER_ANSWER });
    const scripts: { conversation: () => string }[] = [];
    const bothAsked = (): Promise<void> =>
      until('both agents to ask', () => scripts.every((s) => conversationOf(s) !== undefined), 120_000);
    const loop = (slug: string): { conversation: () => string } =>
      stub.on(`local:item:${slug}`, [
        { ...step(), hold: bothAsked },
        { ...step(), repeat: true },
      ]);
    scripts.push(loop('east'), loop('west'));
    const env = { ANTHROPIC_BASE_URL: stub.url, ANTHROPIC_API_KEY: 'sk-stub-not-a-key' };
    const hosts = await Promise.all(['host-a', 'host-b'].map((n) => laneSession(remote, n, env)));
    const runs = await Promise.all(
      hosts.map((h) => h.abcd(['drain', '--runtime', 'claude', '--json', '--lanes', '1'], { timeoutMs: 240_000 })),
    );
    const cycles = runs.flatMap((r) => {
      const record = (r.json.ok ? r.json : r.json.refusal?.data?.result)?.record;
      return (record?.cycles ?? []) as Array<{ item: string; outcome: string; code?: string; reason?: string; usage?: number }>;
    });
    // Both items ran, one on each computer, and both were cut off by the team pool, not the clock.
    expect(cycles.map((c) => c.item).sort(), JSON.stringify(runs.map((r) => r.json))).toEqual(['east', 'west']);
    for (const c of cycles) {
      expect(c, JSON.stringify(c)).toMatchObject({ outcome: 'failed', code: 'budget-exhausted' });
      expect(c.reason).toMatch(/model gateway stopped.*team's model budget on the remote is used up/);
    }
    for (const r of runs) expect(r.code, r.stdout + r.stderr).toBe(3);
    // What the server answered is what the ledger counts, once, and nothing is left open.
    const answered = scripts.map((s) => tokens(stub.usageOf(s.conversation())));
    const ledger = (await remoteLedger(remote))!;
    expect(ledger.open).toEqual([]);
    expect(ledger.spent).toBe(answered[0]! + answered[1]!);
    expect(cycles.map((c) => c.usage).sort()).toEqual([...answered].sort());
    // The bound: the limit, plus one cycle's start reservation past it, plus one answer per computer in flight.
    expect(ledger.spent).toBeLessThanOrEqual(LIMIT + RESERVE + 2 * PER_ANSWER);
    // And the pool was used, not given up early: every share it had was held and spent.
    expect(ledger.spent).toBeGreaterThanOrEqual(LIMIT - PER_ANSWER);
    // Without the check in flight each agent would have run to its timeout; neither item is done.
    expect(await Promise.all(['east', 'west'].map((s) => itemStatus(remote, s)))).toEqual(['ready', 'ready']);
    // The next start anywhere is refused by the pool.
    const again = await hosts[0]!.abcd(['drain', '--runtime', 'claude', '--json', '--lanes', '1'], { timeoutMs: 60_000 });
    expect(again.code, again.stdout + again.stderr).toBe(3);
    expect(again.json.refusal).toMatchObject({ code: 'budget-exhausted', data: { scope: 'team', dir: LEDGER_REF } });
  }, 300_000);

  it('a later turn (a failing check sent back) holds a share of its own in flight, settled with what it used: one count each, nothing open', async () => {
    const remote = await remoteWithItems([{ slug: 'fix' }], {
      lanes: { claude: { program: CLAUDE, model: 'claude-sonnet-4-5' }, cycleReserve: RESERVE, fixChecks: 1 },
      land: { checks: 'test -f fixed.txt' },
    });
    const owner = await signingPerson(remote);
    expect((await owner.abcd(['budget', 'set', '100000', '--team', '--json'])).code).toBe(0);
    const fix = stub.on('local:item:fix', [
      (req) => toolStep(tool.write(join(workingDirectory(req), 'work.txt'), 'work\n'), { input: PER_ANSWER }),
      answer('done', { input: PER_ANSWER }),
      // The check's failure comes back as the next turn: the agent adds what it asks for.
      (req) => toolStep(tool.write(join(workingDirectory(req), 'fixed.txt'), 'fixed\n'), { input: PER_ANSWER }),
      answer('fixed', { input: PER_ANSWER }),
    ]);
    const s = await laneSession(remote, 'host-a', { ANTHROPIC_BASE_URL: stub.url, ANTHROPIC_API_KEY: 'sk-stub-not-a-key' });
    const r = await s.abcd(['drain', '--runtime', 'claude', '--json'], { timeoutMs: 240_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.record.cycles[0]).toMatchObject({ item: 'fix', outcome: 'landed' });
    expect((await execa('git', ['-C', remote.dir, 'show', 'main:fixed.txt'])).stdout).toBe('fixed');
    const answered = tokens(stub.usageOf(fix.conversation()));
    expect(answered).toBe(4 * PER_ANSWER);
    const ledger = (await remoteLedger(remote))!;
    // The first run's reservation and the later turn's holding, each settled once with what it used.
    expect(ledger).toMatchObject({ spent: answered, settled: 2, expired: 0, open: [] });
  }, 300_000);
});
