// Gemini CLI's stream as the gemini runtime reads it, without the CLI: the session a resume
// continues, usage summed over runs, hostile lines kept as text, the transcript's lines, and the
// config checks; and the registry: every name of the config has its spec, under its own name.
import { describe, expect, it } from 'vitest';
import { eventLines } from '../../../src/lanes/logs/transcript-events.js';
import { RUNTIMES } from '../../../src/lanes/runtimes/index.js';
import { checkGeminiConfig, geminiArgv, geminiEnvNames } from '../../../src/lanes/runtimes/gemini/gemini-args.js';
import { GeminiEvents } from '../../../src/lanes/runtimes/gemini/gemini-events.js';
import { RUNTIME_NAMES } from '../../../src/repo/config.js';

// A run as Gemini CLI 0.61 printed it against a local server (one shell command, then a message).
const RUN = [
  '{"type":"init","timestamp":"2026-12-02T02:21:48.685Z","session_id":"f31eb521-7fa0-422b-a759-04d60dba2de8","model":"gemini-2.5-flash"}',
  '{"type":"message","timestamp":"2026-12-02T02:21:48.686Z","role":"user","content":"make a file"}',
  '{"type":"tool_use","timestamp":"2026-12-02T02:21:48.747Z","tool_name":"run_shell_command","tool_id":"t0","parameters":{"command":"echo hello > made.txt","description":"write a file"}}',
  '{"type":"tool_result","timestamp":"2026-12-02T02:21:49.002Z","tool_id":"t0","status":"success","output":""}',
  '{"type":"message","timestamp":"2026-12-02T02:21:49.023Z","role":"assistant","content":"Done","delta":true}',
  '{"type":"result","timestamp":"2026-12-02T02:21:49.032Z","status":"success","stats":{"total_tokens":226,"input_tokens":203,"output_tokens":23,"cached":10,"input":193,"duration_ms":348,"tool_calls":1}}',
];

describe("the gemini runtime's reading of its stream", () => {
  it('names the session, sums every run, tells the activity, and keeps a readable tail', () => {
    const seen: string[] = [];
    const ev = new GeminiEvents((a) => seen.push(`${a.kind}: ${a.text}`));
    let started = 0;
    ev.onStarted = () => started++;
    // Split mid-line: only whole lines are read.
    const text = `${RUN.join('\n')}\n`;
    ev.feed(text.slice(0, 100));
    ev.feed(text.slice(100));
    // A resumed run: its own stats only, and another session id is never taken.
    ev.feed(`${RUN[0]!.replace('f31eb521', 'aaaaaaaa')}\n${RUN[5]!}\n`);
    ev.end();
    expect(started).toBe(2);
    expect(ev.sessionId).toBe('f31eb521-7fa0-422b-a759-04d60dba2de8');
    expect(ev.usage(undefined)).toEqual({
      inputTokens: 386,
      outputTokens: 46,
      cacheReadTokens: 20,
      cacheWriteTokens: 0,
      costUsd: 0,
      turns: 2,
      model: 'gemini-2.5-flash',
      sessionId: 'f31eb521-7fa0-422b-a759-04d60dba2de8',
    });
    expect(seen).toEqual(['tool: echo hello > made.txt', 'message: Done']);
    expect(ev.takeTail()).toBe('→ run_shell_command echo hello > made.txt\nagent: Done\n');
  });

  it('hostile lines: not JSON is kept as text, a bad session id and bad counts are ignored, a failure is named', () => {
    const ev = new GeminiEvents();
    ev.feed('not json at all\n[1,2]\n');
    ev.feed('{"type":"init","session_id":"../../etc/passwd; rm -rf /","timestamp":"x"}\n');
    ev.feed(
      '{"type":"result","status":"error","error":{"message":"[API Error: stub says no]"},"stats":{"input_tokens":-5,"cached":1e300,"output_tokens":"9"}}\n',
    );
    ev.note('Warning: 256-color support not detected.\nYOLO mode is enabled.\nError when talking to Gemini API\n    at foo (bar.js:1:1)\n');
    ev.end();
    expect(ev.sessionId).toBeUndefined();
    expect(ev.usage(undefined)).toMatchObject({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, turns: 1 });
    expect(ev.failure).toBe('[API Error: stub says no]');
    expect(ev.takeTail()).toBe('not json at all\n[1,2]\nfailed: [API Error: stub says no]\nError when talking to Gemini API\n');
  });

  it("transcript lines: its events read as Gemini CLI's, a Claude Code result stays Claude Code's", () => {
    expect(RUN.flatMap((l) => eventLines(l) ?? [l])).toEqual([
      'gemini: session started (gemini-2.5-flash)',
      '→ run_shell_command echo hello > made.txt',
      '  Done',
      'result: success, 203 in (10 cached), 23 out tokens, 1 tool call(s), 0.3s',
    ]);
    expect(eventLines('{"type":"tool_result","timestamp":"t","status":"error","error":{"message":"denied"}}')).toEqual(['  ✗ denied']);
    expect(eventLines('{"type":"result","subtype":"success","num_turns":1,"usage":{"input_tokens":5,"output_tokens":2}}')).toEqual([
      'result: success, 1 turn(s), 5 in, 2 out tokens',
    ]);
  });

  it('its config: a flag it sets itself is refused, the endpoint is always passed (the key by the install rule)', () => {
    expect(() => checkGeminiConfig({ args: ['--approval-mode=default'] })).toThrow(/lanes.gemini.args sets --approval-mode/);
    expect(() => checkGeminiConfig({ args: ['-m', 'x'] })).toThrow(/use lanes.gemini.model instead/);
    expect(() => checkGeminiConfig({ args: ['--include-directories', '/x'] })).not.toThrow();
    expect(() => geminiEnvNames({ env: ['GH_TOKEN'] })).toThrow(/lanes.gemini.env names GH_TOKEN/);
    expect(geminiEnvNames({ env: ['HTTPS_PROXY'] })).toEqual(['GOOGLE_GEMINI_BASE_URL', 'HTTPS_PROXY']);
    expect(geminiArgv({ model: 'm', args: ['--debug'] }, { resume: 's-1' })).toEqual([
      'gemini',
      '-p',
      '',
      '-o',
      'stream-json',
      '--approval-mode',
      'yolo',
      '-m',
      'm',
      '-r',
      's-1',
      '--debug',
    ]);
  });
});

describe('the runtime registry', () => {
  it('holds one spec for every name the config takes, each under its own name', () => {
    expect(Object.keys(RUNTIMES).sort()).toEqual([...RUNTIME_NAMES].sort());
    for (const [name, spec] of Object.entries(RUNTIMES)) expect(spec.name).toBe(name);
    expect(RUNTIMES.gemini.homeVariables).toEqual(['GEMINI_CLI_HOME']);
    expect(RUNTIMES.codex.homeVariables).toEqual(['CODEX_HOME']);
  });
});
