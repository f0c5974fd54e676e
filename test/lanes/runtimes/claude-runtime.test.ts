// The claude runtime's session on its own, with the real CLI and the scripted model server:
// turns of one process, the usage it reports (tokens summed per turn, the cost the last
// running total of each process), a turn killed at its timeout, and the next turn resuming
// the same conversation in a new process.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyUsage } from '../../../src/machine/budget/usage.js';
import { claudeRuntime } from '../../../src/lanes/runtimes/claude/claude.js';
import type { AgentActivity, CycleAgent } from '../../../src/lanes/runtimes/runtime.js';
import { cleanupTemp, tempDir } from '../../harness/git-env.js';
import { AnthropicStub, answer, lastUserText, tool, toolStep } from '../../harness/model-server-anthropic.js';

const CLAUDE = join(import.meta.dirname, '..', '..', '..', 'node_modules', '.bin', 'claude');

let stub: AnthropicStub;
beforeEach(async () => {
  stub = await AnthropicStub.start();
});
afterEach(async () => {
  await stub.close();
});
afterAll(cleanupTemp);

async function cycleAgent(out: string[], seen: AgentActivity[]): Promise<{ agent: CycleAgent; wt: string }> {
  const dir = await tempDir('claude-runtime');
  const wt = join(dir, 'wt');
  for (const d of [wt, join(dir, 'home'), join(dir, 'tmp')]) await mkdir(d, { recursive: true });
  const agent: CycleAgent = {
    env: { PATH: '/usr/bin:/bin', HOME: join(dir, 'home'), TMPDIR: join(dir, 'tmp') },
    sandbox: 'none',
    plan: { hide: [], binds: [], chdir: wt },
    marker: `ABCD_WORKTREE=${wt}`,
    cycleDir: dir,
    mailbox: join(dir, 'mailbox'),
    usageFile: join(dir, 'usage'),
    promptFile: join(dir, 'prompt'),
    now: () => Date.now(),
    onOutput: (c) => out.push(c),
    onActivity: (a) => seen.push(a),
  };
  return { agent, wt };
}

/** The `total_cost_usd` of every result the CLI printed, in order. */
function runningTotals(out: string[]): number[] {
  return out
    .join('')
    .split('\n')
    .filter((l) => l.includes('"type":"result"'))
    .map((l) => (JSON.parse(l) as { total_cost_usd: number }).total_cost_usd);
}

describe('a claude session', () => {
  it('runs turns in one process, resumes the conversation after a kill, and sums usage as the CLI reported it', async () => {
    const out: string[] = [];
    const seen: AgentActivity[] = [];
    const { agent, wt } = await cycleAgent(out, seen);
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    stub.on('write the file', [
      toolStep(tool.write(join(wt, 'one.txt'), 'one\n'), { input: 1000, output: 40, cacheWrite: 500 }),
      answer('wrote one.txt', { input: 1100, output: 5, cacheRead: 900 }),
      (req) => {
        expect(lastUserText(req)).toContain('second turn');
        return answer('second answered', { input: 1200, output: 6, cacheRead: 1000 });
      },
      // The third turn's answer never comes before its timeout.
      { ...answer('too late'), hold: () => held },
      (req) => {
        expect(lastUserText(req)).toContain('after the kill');
        return answer('resumed', { input: 1300, output: 7, cacheRead: 1100 });
      },
    ]);
    const env = { ANTHROPIC_BASE_URL: stub.url, ANTHROPIC_API_KEY: 'sk-stub' };
    const session = await claudeRuntime({ program: CLAUDE, env: ['ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY'] }, env).open(agent);
    let taken = 0;
    const first = await session.turn('please write the file', { kind: 'task', timeoutMs: 120_000, onTaken: () => taken++ });
    expect(first).toMatchObject({ exitCode: 0, timedOut: false, stopped: false });
    expect(first.outputTail).toBe(`[Write ${join(wt, 'one.txt')}]\nwrote one.txt\nresult: wrote one.txt`);
    expect(taken).toBe(1);
    expect(await readFile(join(wt, 'one.txt'), 'utf8')).toBe('one\n');
    expect(seen).toEqual([
      { kind: 'tool', text: `Write ${join(wt, 'one.txt')}` },
      { kind: 'message', text: 'wrote one.txt' },
    ]);
    // No turn runs: a steer has nowhere to go.
    expect(await session.steer('between turns')).toBe(false);

    const second = await session.turn('the second turn', { kind: 'steer', timeoutMs: 120_000 });
    expect(second).toMatchObject({ exitCode: 0 });
    expect(second.outputTail).toBe('second answered\nresult: second answered');
    const [t1, t2] = runningTotals(out);
    expect(t2).toBeGreaterThan(t1!);
    expect(await session.usage()).toMatchObject({ costUsd: t2, turns: 3 });

    const third = await session.turn('a third turn', { kind: 'check', timeoutMs: 3000 });
    expect(third).toMatchObject({ timedOut: true, exitCode: 124 });
    release();
    const fourth = await session.turn('the turn after the kill', { kind: 'conflict', timeoutMs: 120_000 });
    expect(fourth).toMatchObject({ exitCode: 0, timedOut: false });
    await session.close();
    await session.close();
    stub.verify();

    // One conversation throughout: the resumed process continued the killed one's session.
    const conversations = stub.conversations();
    expect(conversations).toHaveLength(1);
    const totals = runningTotals(out);
    expect(totals).toHaveLength(3);
    const reported = stub.usageOf(conversations[0]!);
    expect(await session.usage()).toEqual({
      ...emptyUsage(),
      inputTokens: reported.input,
      outputTokens: reported.output,
      cacheReadTokens: reported.cacheRead,
      cacheWriteTokens: reported.cacheWrite,
      // The killed process's last running total, plus the resumed one's (which starts again).
      costUsd: totals[1]! + totals[2]!,
      turns: 4,
      model: expect.any(String),
      sessionId: conversations[0],
      // Unsandboxed, no gateway stands between the CLI and its API: the counts are the CLI's own.
      source: 'runtime',
    });
  }, 240_000);

  it("a steer written while the model writes its final answer runs as the CLI's next turn, and the turn ends after it", async () => {
    const { agent } = await cycleAgent([], []);
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    let asked: () => void = () => undefined;
    const answering = new Promise<void>((r) => (asked = r));
    stub.on('answer at once', [
      // The final answer is held while the steer is written: no tool call is left to take it at.
      {
        ...answer('first answer', { input: 100, output: 5 }),
        hold: () => {
          asked();
          return held;
        },
      },
      (req) => {
        expect(lastUserText(req)).toContain('LATE STEER');
        return answer('answered the steer', { input: 200, output: 6 });
      },
    ]);
    const env = { ANTHROPIC_BASE_URL: stub.url, ANTHROPIC_API_KEY: 'sk-stub' };
    const session = await claudeRuntime({ program: CLAUDE, env: ['ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY'] }, env).open(agent);
    const turn = session.turn('answer at once', { kind: 'task', timeoutMs: 120_000 });
    await answering;
    const steered = session.steer('LATE STEER: one more thing');
    // Let the line reach the CLI before its answer comes.
    await new Promise((r) => setTimeout(r, 500));
    release();
    expect(await steered).toBe(true);
    const r = await turn;
    expect(r).toMatchObject({ exitCode: 0 });
    expect(r.outputTail).toBe('first answer\nresult: first answer\nanswered the steer\nresult: answered the steer');
    await session.close();
    stub.verify();
    expect(await session.usage()).toMatchObject({ inputTokens: 300, outputTokens: 11, turns: 2 });
  }, 240_000);
});
