// Claude Code's stream-json output as abcd reads it: usage summed per turn, the cost the last
// running total of each process, replays as "taken", hostile lines kept as text and never a
// crash; and the command line the runtime builds from `lanes.claude`.
import { describe, expect, it } from 'vitest';
import { ClaudeStream } from '../../../src/lanes/runtimes/claude/claude-stream.js';
import { checkClaudeConfig, claudeArgv } from '../../../src/lanes/runtimes/claude/claude-args.js';
import type { AgentActivity } from '../../../src/lanes/runtimes/runtime.js';
import { parseRepoConfig } from '../../../src/repo/config.js';
import { laneSettings } from '../../../src/lanes/run/options.js';

const SID = '70533e85-c906-47a0-b1ee-ea608f806e2b';
const line = (m: unknown) => JSON.stringify(m) + '\n';
const result = (o: { input: number; output: number; cost: number; turns: number; ok?: boolean }) =>
  line({
    type: 'result',
    subtype: 'success',
    is_error: o.ok === false,
    num_turns: o.turns,
    result: o.ok === false ? 'API Error: 400' : 'done',
    session_id: SID,
    total_cost_usd: o.cost,
    usage: { input_tokens: o.input, output_tokens: o.output, cache_read_input_tokens: 5, cache_creation_input_tokens: 7 },
  });

describe('the claude stream', () => {
  it('sums per-turn usage, takes the last running cost, and restarts the cost with a new process', () => {
    const results: boolean[] = [];
    const s = new ClaudeStream({ onResult: (r) => results.push(r.ok) });
    s.push(line({ type: 'system', subtype: 'init', session_id: SID, model: 'claude-opus-4-8[1m]' }));
    // A line cut in two arrives in two chunks.
    const r1 = result({ input: 300, output: 23, cost: 0.0021, turns: 2 });
    s.push(r1.slice(0, 40));
    expect(results).toEqual([]);
    s.push(r1.slice(40) + result({ input: 300, output: 3, cost: 0.0037, turns: 1 }));
    expect(s.usage()).toEqual({
      inputTokens: 600,
      outputTokens: 26,
      cacheReadTokens: 10,
      cacheWriteTokens: 14,
      costUsd: 0.0037,
      turns: 3,
      model: 'claude-opus-4-8[1m]',
      sessionId: SID,
    });
    // A resumed process counts its cost from 0 again.
    s.restarted();
    s.push(result({ input: 200, output: 3, cost: 0.0011, turns: 1, ok: false }));
    expect(s.usage().costUsd).toBeCloseTo(0.0048, 10);
    expect(results).toEqual([true, true, false]);
    expect(s.readableTail()).toContain('result (error): API Error: 400');
  });

  it('reports replays, tool calls and text, and keeps garbage as text without counting it', () => {
    const taken: string[] = [];
    const seen: AgentActivity[] = [];
    const s = new ClaudeStream({ onTaken: (u) => taken.push(u), onActivity: (a) => seen.push(a) });
    s.push(line({ type: 'user', isReplay: true, uuid: 'u-1', message: { role: 'user', content: 'x' } }));
    s.push(line({ type: 'user', uuid: 'u-2', message: { role: 'user', content: [{ type: 'tool_result' }] } }));
    s.push(
      line({
        type: 'assistant',
        message: {
          content: [
            { type: 'tool_use', name: 'Write', input: { file_path: '/w/a.txt' } },
            { type: 'text', text: 'wrote it' },
          ],
        },
      }),
    );
    s.push('not json at all\n' + line({ type: 'result', usage: { input_tokens: -5, output_tokens: 1e300 }, total_cost_usd: -1 }));
    expect(taken).toEqual(['u-1']);
    expect(seen).toEqual([
      { kind: 'tool', text: 'Write /w/a.txt' },
      { kind: 'message', text: 'wrote it' },
    ]);
    expect(s.usage()).toMatchObject({ inputTokens: 0, outputTokens: 0, costUsd: 0 });
    expect(s.readableTail()).toBe('[Write /w/a.txt]\nwrote it\nnot json at all\nresult (error): (no text)');
  });
});

describe('the claude command line', () => {
  it('is headless stream-json with replays, acceptEdits and the allowed tools; config adds model, turns, args', () => {
    expect(claudeArgv({})).toEqual([
      'claude',
      '-p',
      '--input-format',
      'stream-json',
      '--output-format',
      'stream-json',
      '--verbose',
      '--replay-user-messages',
      '--permission-mode',
      'acceptEdits',
      '--allowedTools',
      'Read,Write,Edit,NotebookEdit,Glob,Grep,Bash',
    ]);
    const argv = claudeArgv(
      {
        program: '/opt/claude/bin/claude',
        model: 'claude-sonnet-4-5',
        maxTurns: 40,
        allowedTools: ['Read', 'Edit'],
        args: ['--add-dir', '/x'],
      },
      { resume: SID },
    );
    expect(argv[0]).toBe('/opt/claude/bin/claude');
    expect(argv.slice(11)).toEqual(['Read,Edit', '--model', 'claude-sonnet-4-5', '--max-turns', '40', '--resume', SID, '--add-dir', '/x']);
  });

  it('refuses args the runtime sets itself and env names abcd never passes', () => {
    expect(() => checkClaudeConfig({ args: ['--output-format=json'] })).toThrow(/lanes.claude.args sets --output-format/);
    try {
      checkClaudeConfig({ args: ['--model', 'x'] });
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({
        code: 'usage',
        kind: 'config',
        data: { path: '.abcd/config.json', reason: 'wrong-type', key: 'lanes.claude.args' },
      });
      expect((e as Error).message).toContain('use lanes.claude.model instead');
    }
    expect(() => checkClaudeConfig({ env: ['GH_TOKEN'] })).toThrow(/lanes.claude.env names GH_TOKEN/);
    expect(() => checkClaudeConfig({ args: ['--add-dir', '/x'], env: ['ANTHROPIC_API_KEY'] })).not.toThrow();
  });
});

describe('lanes.claude in .abcd/config.json', () => {
  it('is strict: a typo names the key and the keys allowed', () => {
    const ok = parseRepoConfig(
      JSON.stringify({ lanes: { runtime: 'claude', claude: { model: 'm', maxTurns: 5, env: ['ANTHROPIC_API_KEY'] } } }),
      'cfg',
    );
    expect(ok.lanes?.claude?.maxTurns).toBe(5);
    try {
      parseRepoConfig(JSON.stringify({ lanes: { claude: { allowedTool: ['Read'] } } }), 'cfg');
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({ code: 'usage', kind: 'config', data: { reason: 'unknown-key', key: 'lanes.claude.allowedTool' } });
      expect((e as Error).message).toContain('"allowedTools"');
    }
    expect(() => parseRepoConfig(JSON.stringify({ lanes: { runtime: 'opencode' } }), 'cfg')).toThrow(
      /"lanes.runtime" has the wrong type or value/,
    );
  });
});

describe("--runtime in a lane's settings", () => {
  const now = Date.parse('2026-12-01T12:00:00Z');
  it('claude needs no agent command, runs its program (lanes.claude.program, else claude), and refuses --agent', () => {
    expect(laneSettings({ runtime: 'claude' }, {}, {}, now)).toMatchObject({ runtime: 'claude', agent: '', program: 'claude' });
    const fromConfig = laneSettings({}, { runtime: 'claude', claude: { program: '/opt/claude/bin/claude' } }, {}, now);
    expect(fromConfig).toMatchObject({ runtime: 'claude', program: '/opt/claude/bin/claude' });
    // The flag wins over the config; the command runtime keeps --agent.
    expect(laneSettings({ runtime: 'command', agent: 'true' }, { runtime: 'claude' }, {}, now)).toMatchObject({
      runtime: 'command',
      agent: 'true',
      program: 'true',
    });
    expect(() => laneSettings({ runtime: 'claude', agent: 'true' }, {}, {}, now)).toThrow(/--agent is the command runtime's/);
    expect(() => laneSettings({}, {}, {}, now)).toThrow(/no agent command: .*--runtime claude/);
    expect(() => laneSettings({ runtime: 'claude' }, { claude: { args: ['--resume', 'x'] } }, {}, now)).toThrow(
      /lanes.claude.args sets --resume/,
    );
  });
});

describe("Claude Code's api_retry messages", () => {
  it('show in the live line and stay known until the model answers again; hostile fields are not echoed', () => {
    const seen: AgentActivity[] = [];
    const s = new ClaudeStream({ onActivity: (a) => seen.push(a) });
    const retry = (o: Record<string, unknown>) =>
      line({ type: 'system', subtype: 'api_retry', max_retries: 10, retry_delay_ms: 2000, session_id: SID, uuid: SID, ...o });
    s.push(retry({ attempt: 1, error_status: 503, error: 'server_error' }));
    s.push(retry({ attempt: 2, error_status: null, error: 'x; rm -rf /' }));
    expect(seen.map((a) => a.text)).toEqual([
      'model API retry 1/10: server_error (HTTP 503), next in 2s',
      'model API retry 2/10: unknown (no connection), next in 2s',
    ]);
    expect(s.retrying).toEqual({ attempts: 2, error: 'unknown (no connection)' });
    expect(s.readableTail()).toContain('[model API retry 1/10: server_error (HTTP 503), next in 2s]');
    s.push(line({ type: 'assistant', message: { content: [{ type: 'text', text: 'back' }] } }));
    expect(s.retrying).toBeUndefined();
  });
});
