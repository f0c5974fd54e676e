// `abcd logs` as a person reads it: with no run id, this clone's latest run; by default a
// transcript (the prompt's first lines, one line per tool call with its target, the
// assistant's text, the checks' output, the result with usage and cost, steers as marked
// boundaries) whatever the runtime wrote; --raw prints the runtime's own stream.
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { laneSession, remoteWithItems } from '../harness/lanes.js';
import { AnthropicStub, answer, tool, toolStep, workingDirectory } from '../harness/model-server-anthropic.js';
import { ANSWERS } from '../../src/cli/answers.js';
import { renderTranscript } from '../../src/lanes/logs/transcript.js';
import type { LogMark } from '../../src/lanes/logs/log-marks.js';
import { steerIds } from '../../src/lanes/logs/log-marks.js';
import { buildEnvelope } from '../../src/steering/envelope.js';

const CLAUDE = join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'claude');
const MODEL = 'claude-sonnet-4-5';

let stub: AnthropicStub;
beforeEach(async () => {
  stub = await AnthropicStub.start();
});
afterEach(async () => {
  await stub.close();
});
afterAll(cleanupTemp);

describe('abcd logs renders a transcript', () => {
  it("shows the latest run of a real Claude Code lane with no raw JSON line; --raw shows the CLI's stream", async () => {
    const config = {
      lanes: { claude: { program: CLAUDE, model: MODEL } },
      land: { checks: 'echo "all 3 tests passed"' },
    };
    const remote = await remoteWithItems([{ slug: 'alpha' }], config);
    stub.on('local:item:alpha', [
      (req) => toolStep(tool.write(join(workingDirectory(req), 'alpha.txt'), 'alpha\n'), { input: 1200, output: 40 }),
      toolStep(tool.bash('git add alpha.txt && git commit -qm "claude: alpha"'), { input: 1300, output: 25 }),
      answer('alpha is written and committed', { input: 1400, output: 8 }),
    ]);
    const s = await laneSession(remote, 'reader', { ANTHROPIC_BASE_URL: stub.url, ANTHROPIC_API_KEY: 'sk-stub-not-a-key' });
    const r = await s.abcd(['build', 'alpha', '--runtime', 'claude', '--json'], { timeoutMs: 240_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);

    const t = await s.abcd(['logs']);
    expect(t.code, t.stderr).toBe(0);
    const lines = t.stdout.split('\n');
    expect(lines[0]).toBe('==> cycle 1: alpha <==');
    expect(lines).toContain('── prompt (claude) ──');
    expect(lines.some((l) => l.startsWith('> ') && l.includes('alpha'))).toBe(true);
    expect(lines).toContain(`claude: session started (${MODEL})`);
    expect(lines.some((l) => /^→ Write \/.*alpha\.txt$/.test(l))).toBe(true);
    expect(lines).toContain('→ Bash git add alpha.txt && git commit -qm "claude: alpha"');
    expect(lines).toContain('  alpha is written and committed');
    expect(lines.find((l) => l.startsWith('result: success'))).toMatch(/^result: success, 3 turn\(s\), \d+ in, \d+ out tokens, .*\$\d/);
    expect(lines).toContain('── checks ──');
    expect(lines).toContain('all 3 tests passed');
    expect(lines.find((l) => l.startsWith('── result: landed'))).toMatch(/^── result: landed in \S+, \d+ tokens, \$\d+\.\d{4} ──$/);
    // Not one line of the runtime's JSON (the init line lists every tool).
    expect(lines.filter((l) => l.trimStart().startsWith('{'))).toEqual([]);
    expect(t.stdout).not.toContain('"type"');

    const raw = await s.abcd(['logs', '--raw']);
    expect(raw.stdout).toContain('{"type":"system","subtype":"init"');
    expect(raw.stdout).toContain('{"type":"result"');

    const json = await s.abcd(['logs', '--json']);
    expect(ANSWERS.logs!.safeParse(json.json).success).toBe(true);
    expect(json.json).toMatchObject({ runId: r.json.runId, state: 'finished' });
    expect(json.json.cycles[0].transcript).toContain('── prompt (claude) ──');
  }, 300_000);

  it('renders Codex events and a command runtime alike, each steer a boundary with its id, the checks as they printed', () => {
    const envelope = buildEnvelope({
      item: 'local:item:x',
      runId: 'r1',
      at: 0,
      entries: [{ authority: 'amendment', source: 'steer 20261201T100000Z-ab12cd by a@x/h/s at 10:00', text: 'use tabs' }],
    });
    expect(steerIds(envelope)).toEqual(['20261201T100000Z-ab12cd']);
    const codex = [
      '{"type":"thread.started","thread_id":"t-1"}',
      '{"type":"turn.started"}',
      '{"type":"item.completed","item":{"id":"i0","type":"reasoning","text":"thinking hard"}}',
      '{"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"bash -lc ls","exit_code":0,"aggregated_output":"a\\nb"}}',
      '{"type":"item.completed","item":{"id":"i2","type":"file_change","changes":[{"path":"src/a.ts","kind":"update"}]}}',
      '{"type":"item.completed","item":{"id":"i3","type":"agent_message","text":"done with x"}}',
      '{"type":"turn.completed","usage":{"input_tokens":900,"cached_input_tokens":100,"output_tokens":40}}',
      '{"some":"other json"}',
      'plain stderr line',
    ].join('\n');
    const checks = '\n[abcd] check: npm test\n{"reporter":"json"}\n[abcd] check exited 0 after 1s\n';
    const log = Buffer.from(`${codex}\n${checks}`);
    const at = (text: string) => Buffer.byteLength(text);
    const marks: LogMark[] = [
      { at: 0, kind: 'turn', runtime: 'codex', turn: 'task', lines: ['Work on item x.'], more: 4 },
      { at: at('{"type":"thread.started","thread_id":"t-1"}\n'), kind: 'steer', runtime: 'codex', steers: steerIds(envelope) },
      { at: at(`${codex}\n`), kind: 'checks' },
      { at: log.length, kind: 'checks-end' },
      { at: log.length, kind: 'end', outcome: 'landed', durationMs: 61_000, tokens: 1040, costUsd: 0 },
    ];
    expect(renderTranscript(log, marks)).toEqual([
      '── prompt (codex) ──',
      '> Work on item x.',
      '> … 4 more line(s)',
      'codex: thread started',
      '── steer 20261201T100000Z-ab12cd (handed to the agent while it worked) ──',
      '→ $ bash -lc ls (exit 0)',
      '→ edit src/a.ts',
      '  done with x',
      'usage: 900 in (100 cached), 40 out tokens',
      'plain stderr line',
      '── checks ──',
      '',
      '[abcd] check: npm test',
      '{"reporter":"json"}',
      '[abcd] check exited 0 after 1s',
      '── result: landed in 1m, 1040 tokens ──',
    ]);
    // A command runtime's plain output, and a steer turn after it: as printed, the boundary marked.
    const plain = Buffer.from('reading the code\nwriting the fix\n');
    expect(
      renderTranscript(plain, [
        { at: 0, kind: 'turn', runtime: 'command', turn: 'task', lines: ['Work on x'] },
        { at: at('reading the code\n'), kind: 'turn', runtime: 'command', turn: 'steer', steers: ['s-1', 's-2'] },
      ]),
    ).toEqual(['── prompt (command) ──', '> Work on x', 'reading the code', '── steer s-1, s-2 (command) ──', 'writing the fix']);
  });
});
