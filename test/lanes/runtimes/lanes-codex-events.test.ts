// The codex runtime's reading of `codex exec --json` and of the team's config: the thread id,
// usage as the thread's running total (latest wins, never a sum), hostile lines kept as text,
// and the private home seeded with config.toml only (what of it: lanes-codex-config.test.ts).
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeCodexHome } from '../../../src/lanes/runtimes/codex/codex-home.js';
import { CodexEvents } from '../../../src/lanes/runtimes/codex/codex-events.js';
import { codexEnvNames } from '../../../src/lanes/runtimes/codex/codex.js';
import { keyPassedByDefault } from '../../../src/lanes/runtimes/installs.js';
import { RUNTIMES } from '../../../src/lanes/runtimes/index.js';
import { UsageError } from '../../../src/core/refusals.js';
import type { AgentActivity } from '../../../src/lanes/runtimes/runtime.js';
import { cleanupTemp, tempDir } from '../../harness/git-env.js';

const usageLine = (input: number, cached: number, output: number) =>
  JSON.stringify({
    type: 'turn.completed',
    usage: { input_tokens: input, cached_input_tokens: cached, cache_write_input_tokens: 0, output_tokens: output },
  });

describe('codex events', () => {
  afterAll(cleanupTemp);

  it('takes the thread id, the latest running total, and the activity, split across chunks', () => {
    const seen: AgentActivity[] = [];
    const ev = new CodexEvents((a) => seen.push(a));
    const text = [
      '{"type":"thread.started","thread_id":"0199-abc"}',
      '{"type":"turn.started"}',
      '{"type":"item.started","item":{"type":"command_execution","command":"echo hi > a.txt"}}',
      '{"type":"item.completed","item":{"type":"command_execution","command":"echo hi > a.txt","exit_code":0}}',
      '{"type":"item.completed","item":{"type":"agent_message","text":"done"}}',
      usageLine(3000, 300, 30),
      '{"type":"thread.started","thread_id":"0199-abc"}',
      usageLine(10000, 1000, 100),
    ].join('\n');
    ev.feed(text.slice(0, 50));
    ev.feed(text.slice(50) + '\n');
    ev.end();
    expect(ev.threadId).toBe('0199-abc');
    expect(ev.usage('m1')).toEqual({
      inputTokens: 9000,
      cacheReadTokens: 1000,
      cacheWriteTokens: 0,
      outputTokens: 100,
      costUsd: 0,
      turns: 2,
      model: 'm1',
      sessionId: '0199-abc',
    });
    expect(seen).toEqual([
      { kind: 'tool', text: 'echo hi > a.txt' },
      { kind: 'message', text: 'done' },
    ]);
    expect(ev.takeTail()).toBe('$ echo hi > a.txt (exit 0)\nagent: done\n');
  });

  it('hostile lines: not JSON, negative or huge counts, a forged thread id; never a crash or a negative debit', () => {
    const ev = new CodexEvents();
    ev.feed('garbage {\n[1,2]\n{"type":"thread.started","thread_id":"../../etc"}\n');
    ev.feed(JSON.stringify({ type: 'turn.completed', usage: { input_tokens: -5, cached_input_tokens: 1e300, output_tokens: 'x' } }) + '\n');
    ev.note('Reading additional input from stdin...\nWARNING: something\n');
    expect(ev.threadId).toBeUndefined();
    const u = ev.usage(undefined);
    expect(u).toMatchObject({ inputTokens: 0, outputTokens: 0, cacheReadTokens: Number.MAX_SAFE_INTEGER, turns: 1 });
    expect(u.sessionId).toBeUndefined();
    expect(ev.takeTail()).toBe('garbage {\n[1,2]\nWARNING: something\n');
  });

  it("the private home gets the team's config.toml and nothing else", async () => {
    const team = await tempDir('codex-team');
    await writeFile(join(team, 'config.toml'), 'model = "team-model"\nmodel_provider = "p"\n[model_providers.p]\nmodel = "no"\n');
    await writeFile(join(team, 'auth.json'), '{"token":"secret"}');
    const cycle = await tempDir('codex-cycle');
    const home = await makeCodexHome(cycle, team);
    expect(home).toMatchObject({ dir: join(cycle, 'codex-home'), model: 'team-model', dropped: ['model_providers.p.model'] });
    expect(home.seeded).toContain(join(team, 'config.toml'));
    expect(await readdir(home.dir)).toEqual(['config.toml']);
    expect(await readFile(join(home.dir, 'config.toml'), 'utf8')).toMatch(/^model = "team-model"/);
    const bare = await tempDir('codex-cycle');
    await mkdir(join(bare, 'x'));
    expect(await makeCodexHome(bare, undefined)).toMatchObject({ seeded: expect.stringMatching(/no config/) });
  });

  it("Codex's environment names: its endpoint and config home, plus lanes.codex.env, never a forge token; its key only where no gateway holds it", () => {
    expect(codexEnvNames({ env: ['HTTPS_PROXY'] })).toEqual(['OPENAI_BASE_URL', 'CODEX_HOME', 'HTTPS_PROXY']);
    expect(keyPassedByDefault(RUNTIMES.codex.install, false)).toEqual(['OPENAI_API_KEY']);
    expect(keyPassedByDefault(RUNTIMES.codex.install, true)).toEqual([]);
    expect(keyPassedByDefault(RUNTIMES.claude.install, false)).toEqual([]);
    let err: unknown;
    try {
      codexEnvNames({ env: ['GH_TOKEN'] });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toMatch(/^lanes\.codex\.env names GH_TOKEN/);
    expect((err as UsageError).data).toEqual({ name: 'GH_TOKEN' });
  });
});
