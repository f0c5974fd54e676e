// The scripted Anthropic model server against the real `claude` (the devDependency), outside
// any lane: its tool call makes the CLI write a file with its own Write tool, the usage the
// CLI reports is what the server said, every request is recorded, and a request no script
// expects fails loudly (a 400 the CLI does not retry, and verify() names it).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicStub, answer, lastUserText, tool, toolStep } from '../harness/model-server-anthropic.js';

const CLAUDE = join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'claude');

let stub: AnthropicStub;
let dir: string;
beforeEach(async () => {
  stub = await AnthropicStub.start();
  dir = await mkdtemp(join(tmpdir(), 'abcd-anthropic-'));
});
afterEach(async () => {
  await stub.close();
  await rm(dir, { recursive: true, force: true });
});

function claude(prompt: string) {
  return execa(CLAUDE, ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Write'], {
    cwd: dir,
    input: JSON.stringify({ type: 'user', message: { role: 'user', content: prompt } }) + '\n',
    env: {
      PATH: '/usr/bin:/bin',
      HOME: dir,
      ANTHROPIC_BASE_URL: stub.url,
      ANTHROPIC_API_KEY: 'sk-stub',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
    },
    extendEnv: false,
    reject: false,
    timeout: 120_000,
  });
}

function results(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((m) => m.type === 'result');
}

describe('the Anthropic model server stub', () => {
  it('drives the real CLI: its Write tool edits a file, the tool result comes back, usage is what the stub reported', async () => {
    stub.on('make hello.txt', [
      toolStep(tool.write(join(dir, 'hello.txt'), 'hello\n'), { input: 120, output: 30, cacheRead: 4, cacheWrite: 9 }),
      (req) => {
        expect(lastUserText(req)).toContain('File created successfully');
        return answer('made it', { input: 150, output: 5 });
      },
    ]);
    const r = await claude('please make hello.txt');
    expect(r.exitCode).toBe(0);
    expect(await readFile(join(dir, 'hello.txt'), 'utf8')).toBe('hello\n');
    stub.verify();
    const [conversation] = stub.conversations();
    expect(stub.requestsOf(conversation!).map((q) => q.body.stream)).toEqual([true, true]);
    const [res] = results(r.stdout);
    expect(res).toMatchObject({
      subtype: 'success',
      is_error: false,
      result: 'made it',
      num_turns: 2,
      session_id: conversation,
      usage: { input_tokens: 270, output_tokens: 35, cache_read_input_tokens: 4, cache_creation_input_tokens: 9 },
    });
    expect(stub.usageOf(conversation!)).toEqual({ input: 270, output: 35, cacheRead: 4, cacheWrite: 9, requests: 2 });
  });

  it('fails loudly on a conversation no script expects', async () => {
    stub.on('something else', [answer('no')]);
    const r = await claude('an unexpected prompt');
    expect(results(r.stdout)[0]).toMatchObject({ is_error: true });
    expect(() => stub.verify()).toThrow(/no script for conversation .*an unexpected prompt.*a script .*has 1 step\(s\) unused/s);
  });
});
