// Lanes with the `claude` runtime: the real Claude Code (the devDependency) in the lane's
// bubblewrap sandbox, against a scripted Anthropic model server on 127.0.0.1. The model's
// tool calls make the CLI edit files with its own tools; abcd lands what it did, counts the
// usage the server reported, and hands a steer to the running session as a user message.
import { execa } from 'execa';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STEER_ENVELOPE_FIRST_LINE } from '../../../src/steering/envelope.js';
import { cleanupTemp } from '../../harness/git-env.js';
import { laneSession, remoteWithItems } from '../../harness/lanes.js';
import {
  AnthropicStub,
  answer,
  lastUserText,
  tool,
  toolStep,
  workingDirectory,
  type ModelRequest,
  type StubUsage,
} from '../../harness/model-server-anthropic.js';
import { makeSession } from '../../harness/session.js';
import { refsUnder, remoteRecord, until } from '../../harness/steer.js';

const CLAUDE = join(import.meta.dirname, '..', '..', '..', 'node_modules', '.bin', 'claude');
const MODEL = 'claude-sonnet-4-5';

let stub: AnthropicStub;
beforeEach(async () => {
  stub = await AnthropicStub.start();
});
afterEach(async () => {
  await stub.close();
});
afterAll(cleanupTemp);

function claudeConfig(extra: Record<string, unknown> = {}) {
  return {
    lanes: {
      claude: { program: CLAUDE, model: MODEL },
      ...extra,
    },
  };
}

function modelEnv(): Record<string, string> {
  return { ANTHROPIC_BASE_URL: stub.url, ANTHROPIC_API_KEY: 'sk-stub-not-a-key' };
}

async function onMain(remote: { dir: string }, file: string): Promise<string> {
  return (await execa('git', ['-C', remote.dir, 'show', `main:${file}`])).stdout;
}

const tokens = (u: Required<StubUsage>) => u.input + u.output + u.cacheRead + u.cacheWrite;

/** The `total_cost_usd` of each result Claude Code printed in one cycle's log, in order. */
async function costsInLog(clone: string, runId: string, item: string): Promise<number[]> {
  const dir = join(clone, '.git', 'abcd', 'logs', runId);
  const name = (await readdir(dir)).find((f) => f.endsWith(`-${item}.log`))!;
  return (await readFile(join(dir, name), 'utf8'))
    .split('\n')
    .filter((l) => l.startsWith('{"type":"result"'))
    .map((l) => (JSON.parse(l) as { total_cost_usd: number }).total_cost_usd);
}

describe('the claude runtime', () => {
  it('drains two items whose model edits files through the CLI: both land, each with the usage the model reported', async () => {
    const remote = await remoteWithItems([{ slug: 'alpha' }, { slug: 'beta' }], claudeConfig());
    // alpha: Write, then commit with Bash. beta: Write, then Edit, and the change left uncommitted.
    const alpha = stub.on('local:item:alpha', [
      (req) =>
        toolStep(tool.write(join(workingDirectory(req), 'alpha.txt'), 'alpha by claude\n'), { input: 1200, output: 40, cacheWrite: 300 }),
      // What a prompt-injected agent would look for: its environment and Claude Code's own config files.
      toolStep(
        tool.bash(
          '{ env; cat "$HOME"/.claude.json "$HOME"/.claude/* 2>/dev/null; } > seen.txt; git add alpha.txt seen.txt && git commit -qm "claude: alpha"',
        ),
        { input: 1300, output: 25, cacheRead: 1100 },
      ),
      answer('alpha is done', { input: 1400, output: 8, cacheRead: 1200 }),
    ]);
    const beta = stub.on('local:item:beta', [
      (req) => toolStep(tool.write(join(workingDirectory(req), 'beta.txt'), 'one\n'), { input: 900, output: 30 }),
      (req) => toolStep(tool.edit(join(workingDirectory(req), 'beta.txt'), 'one', 'two'), { input: 950, output: 20, cacheRead: 800 }),
      answer('beta is done', { input: 1000, output: 6, cacheRead: 850, cacheWrite: 50 }),
    ]);
    const s = await laneSession(remote, 'drainer', modelEnv());
    const r = await s.abcd(['drain', '--runtime', 'claude', '--json'], { timeoutMs: 240_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    stub.verify();
    expect(r.json.sandbox).toBe('bwrap');
    const cycles = r.json.record.cycles as Array<{ item: string; outcome: string; usage?: number }>;
    expect(cycles.map((c) => [c.item, c.outcome]).sort()).toEqual([
      ['alpha', 'landed'],
      ['beta', 'landed'],
    ]);
    expect(await onMain(remote, 'alpha.txt')).toBe('alpha by claude');
    expect(await onMain(remote, 'beta.txt')).toBe('two');
    // Each cycle's usage is what its conversation's answers reported, every kind of token summed.
    const used = (item: string) => cycles.find((c) => c.item === item)!.usage;
    expect(used('alpha')).toBe(tokens(stub.usageOf(alpha.conversation())));
    expect(used('beta')).toBe(tokens(stub.usageOf(beta.conversation())));
    expect(r.json.record.usage).toBe(tokens(stub.usageOf(alpha.conversation())) + tokens(stub.usageOf(beta.conversation())));
    // By kind, with the cost the CLI printed last in each cycle's log (its running total), the
    // model requests, the model and the session.
    for (const [item, script] of [
      ['alpha', alpha],
      ['beta', beta],
    ] as const) {
      const cycle = cycles.find((c) => c.item === item) as unknown as { spend: Record<string, unknown> };
      const reported = stub.usageOf(script.conversation());
      const totals = await costsInLog(s.dir, r.json.runId, item);
      expect(totals.length).toBe(1);
      expect(cycle.spend).toEqual({
        inputTokens: reported.input,
        outputTokens: reported.output,
        cacheReadTokens: reported.cacheRead,
        cacheWriteTokens: reported.cacheWrite,
        costUsd: totals.at(-1),
        turns: 3,
        model: expect.stringContaining(MODEL),
        sessionId: script.conversation(),
        // Read from the API's own answers as they passed abcd's model gateway.
        source: 'api',
      });
    }
    // The model server got the real key on every request; the agent held only a placeholder.
    const posts = stub.requests.filter((q) => q.method === 'POST');
    expect(posts.length).toBeGreaterThan(0);
    expect(new Set(posts.map((q) => q.key))).toEqual(new Set([modelEnv().ANTHROPIC_API_KEY]));
    const seen = await onMain(remote, 'seen.txt');
    expect(seen).toContain('ANTHROPIC_API_KEY=abcd-model-gateway-placeholder');
    expect(seen).toMatch(/ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.2:\d+/);
    expect(seen).not.toContain(modelEnv().ANTHROPIC_API_KEY);
    expect(seen).not.toContain(stub.url);
    // The machine's budget took exactly that, under the claude runtime.
    const costs = [...(await costsInLog(s.dir, r.json.runId, 'alpha')), ...(await costsInLog(s.dir, r.json.runId, 'beta'))];
    const budget = await s.abcd(['budget', '--json']);
    expect(budget.json).toMatchObject({ spent: r.json.record.usage, spentUsd: expect.closeTo(costs[0]! + costs[1]!, 12) });
    expect(budget.json.lastDay.byRuntime).toEqual([
      { runtime: 'claude', debits: 2, tokens: r.json.record.usage, usd: expect.closeTo(costs[0]! + costs[1]!, 12) },
    ]);
    // The model named in lanes.claude is the one asked; one conversation per item.
    expect(new Set(stub.requests.filter((q) => q.method === 'POST').map((q) => q.body.model))).toEqual(new Set([MODEL]));
    expect(stub.conversations()).toHaveLength(2);
  }, 300_000);

  // Claude Code keeps CLAUDE_CODE_OAUTH_TOKEN out of its tools' environment (its Bash does not
  // see it); ANTHROPIC_AUTH_TOKEN it passes on, so there the placeholder is what a tool sees.
  it.each([
    ['CLAUDE_CODE_OAUTH_TOKEN', { bearer: 'canary-oauth-token-81c2', betas: expect.arrayContaining(['oauth-2025-04-20']) }, false],
    ['ANTHROPIC_AUTH_TOKEN', { bearer: 'canary-auth-token-4d07', betas: expect.not.arrayContaining(['oauth-2025-04-20']) }, true],
  ] as const)(
    'with only %s set, the gateway carries it: the server gets it as Claude Code sends it, the agent holds a placeholder',
    async (name, auth, shown) => {
      const remote = await remoteWithItems([{ slug: 'token' }], claudeConfig());
      const script = stub.on('local:item:token', [
        toolStep(
          tool.bash(
            '{ env; cat "$HOME"/.claude.json "$HOME"/.claude/* 2>/dev/null; } > seen.txt; git add seen.txt && git commit -qm "claude: seen"',
          ),
          {
            input: 300,
            output: 10,
          },
        ),
        answer('token is done', { input: 320, output: 4 }),
      ]);
      const s = await laneSession(remote, 'tokened', { ANTHROPIC_BASE_URL: stub.url, [name]: auth.bearer });
      const r = await s.abcd(['drain', '--runtime', 'claude', '--json'], { timeoutMs: 240_000 });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      stub.verify();
      const posts = stub.requests.filter((q) => q.method === 'POST');
      expect(posts.length).toBeGreaterThan(0);
      for (const q of posts) expect(q.auth).toEqual(auth);
      const seen = await onMain(remote, 'seen.txt');
      if (shown) expect(seen).toContain(`${name}=abcd-model-gateway-placeholder`);
      else expect(seen).not.toContain(`${name}=`);
      expect(seen).not.toContain('ANTHROPIC_API_KEY=');
      expect(seen).not.toContain(auth.bearer);
      expect(r.json.record.cycles[0].spend).toMatchObject({ source: 'api', inputTokens: 620, outputTokens: 14 });
      expect(stub.usageOf(script.conversation()).requests).toBe(2);
    },
    300_000,
  );

  it('hands a steer to Claude Code while it works: a user message of the same session, acted on, and receipted', async () => {
    const remote = await remoteWithItems([{ slug: 'page' }], claudeConfig({ steer: { poll: '300ms' } }));
    const steerLine = 'also write steered.txt saying bold';
    let steeredAt: ModelRequest | undefined;
    // The model works (a Bash step it repeats) until a request carries the envelope; then it
    // does what the steer asked and answers.
    const page = stub.on('local:item:page', [
      (req) => toolStep(tool.write(join(workingDirectory(req), 'page.txt'), 'page\n'), { input: 500, output: 10 }),
      (req) => {
        if (!lastUserText(req).includes(STEER_ENVELOPE_FIRST_LINE))
          return { ...toolStep(tool.bash('sleep 0.3'), { input: 10, output: 1 }), repeat: true };
        steeredAt = req;
        return toolStep(tool.write(join(workingDirectory(req), 'steered.txt'), 'bold\n'), { input: 700, output: 12 });
      },
      toolStep(tool.bash('git add -A && git commit -qm "claude: page"'), { input: 720, output: 9 }),
      answer('page is done, steered as asked', { input: 730, output: 7 }),
    ]);
    const lane = await laneSession(remote, 'lane', { ABCD_SESSION: 'lane', ...modelEnv() });
    const run = lane.abcd(['build', 'page', '--runtime', 'claude', '--json'], { timeoutMs: 240_000 });
    await until('the agent to ask its model', () => stub.requests.some((q) => q.method === 'POST'), 120_000);
    const asker = await makeSession(remote.url, 'asker', { person: 'lane@example.com' });
    const steer = await asker.abcd(['steer', 'page', steerLine, '--json']);
    expect(steer.code, steer.stdout + steer.stderr).toBe(0);
    const r = await run;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json).toMatchObject({ outcome: 'landed' });
    stub.verify();

    // The envelope reached the same conversation, in a later request of the turn it was steered in.
    const conversation = page.conversation();
    expect(stub.conversations()).toEqual([conversation]);
    expect(steeredAt?.conversation).toBe(conversation);
    const first = stub.requestsOf(conversation)[0]!;
    expect(steeredAt!.n).toBeGreaterThan(first.n);
    const took = lastUserText(steeredAt!);
    expect(took).toContain(STEER_ENVELOPE_FIRST_LINE);
    expect(took).toContain(`| ${steerLine}`);
    // The CLI's own words for a message that came while it worked: taken inside the turn.
    expect(took).toContain('The user sent a new message while you were working');
    // The agent acted on it, and what it did landed.
    expect(await onMain(remote, 'steered.txt')).toBe('bold');
    // One cycle, one turn of the CLI: the steer came in flight, not as a restart.
    expect(r.json.record.cycles).toHaveLength(1);
    const main = (await execa('git', ['-C', remote.dir, 'rev-parse', 'main'])).stdout.trim();
    const receipt = await remoteRecord(remote, 'refs/heads/abcd/receipts/local/item/page');
    expect(receipt).toMatchObject({ abcd: 'receipt', item: 'local:item:page', head: main, runId: r.json.runId });
    expect(receipt.consumed).toEqual([expect.objectContaining({ kind: 'steer', id: steer.json.id })]);
    expect(await refsUnder(remote, 'refs/heads/abcd/steer/')).toEqual([]);
    // The transcript marks where the steer reached the agent, by its id.
    const logs = await lane.abcd(['logs']);
    expect(logs.stdout.split('\n')).toContain(`── steer ${steer.json.id} (handed to the agent while it worked) ──`);
  }, 300_000);

  it('a pool smaller than one turn: the gateway stops the next model request, the cycle ends budget-exhausted, and the debit is what the server answered', async () => {
    const remote = await remoteWithItems([{ slug: 'long' }], claudeConfig());
    const long = stub.on('local:item:long', [
      (req) => toolStep(tool.write(join(workingDirectory(req), 'long.txt'), 'part one\n'), { input: 1200, output: 40 }),
      answer('never asked for', { input: 5000, output: 5000 }),
    ]);
    const s = await laneSession(remote, 'spender', modelEnv());
    expect((await s.abcd(['budget', 'set', '1000'])).code).toBe(0);
    const r = await s.abcd(['drain', '--runtime', 'claude', '--json'], { timeoutMs: 240_000 });
    // The drain ends without landing (exit 3); its result is the refusal's.
    expect(r.code, r.stdout + r.stderr).toBe(3);
    const record = r.json.refusal.data.result.record;
    const cycle = (record.cycles as Array<{ item: string; outcome: string; code?: string; usage?: number; reason?: string }>)[0]!;
    expect(cycle, JSON.stringify(r.json)).toMatchObject({ item: 'long', outcome: 'failed', code: 'budget-exhausted' });
    expect(cycle.reason).toContain('model gateway stopped');
    // One answer was sent, and only what it reported was debited: the turn could not run on.
    const answered = stub.usageOf(long.conversation());
    expect(answered.requests).toBe(1);
    expect(cycle.usage).toBe(tokens(answered));
    const budget = await s.abcd(['budget', '--json']);
    expect(budget.json).toMatchObject({ spent: tokens(answered), remaining: 0 });
    // Nothing of the cut-off cycle landed.
    await expect(onMain(remote, 'long.txt')).rejects.toThrow();
  }, 300_000);
});
