// What the codex runtime relies on in the real Codex CLI (the devDependency), run headless
// against the Responses-API stub: `exec --json` names its thread in `thread.started`, runs the
// stub's `exec_command` calls and sends their output back, reports `turn.completed.usage` (the thread's running total), and
// `exec resume <thread>` continues the same conversation. A Codex upgrade that changes any of
// this fails here before it fails in a lane.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../../harness/git-env.js';
import { OpenAiModelServer } from '../../harness/model-server-openai.js';

const CODEX = join(import.meta.dirname, '..', '..', '..', 'node_modules', '.bin', 'codex');
const FLAGS = ['--json', '--skip-git-repo-check', '-c', 'sandbox_mode="danger-full-access"', '-c', 'approval_policy="never"'];

async function codexPlace(server: OpenAiModelServer) {
  const dir = await tempDir('codex-cli');
  await Promise.all(['home', 'wt', 'tmp'].map((d) => mkdir(join(dir, d))));
  await writeFile(join(dir, 'home', 'config.toml'), server.codexConfig());
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    TMPDIR: join(dir, 'tmp'),
    CODEX_HOME: join(dir, 'home'),
    STUB_OPENAI_KEY: 'k',
  };
  const run = async (args: string[], exitCode = 0) => {
    const r = await execa(CODEX, ['exec', ...args], { env, extendEnv: false, cwd: join(dir, 'wt'), stdin: 'ignore', reject: false });
    expect(r.exitCode, r.stderr).toBe(exitCode);
    return r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; [k: string]: unknown });
  };
  return { dir, run };
}

describe('the Codex CLI against the model stub', () => {
  afterAll(cleanupTemp);

  it("runs the scripted command, reports usage as the thread's running total, and resumes the same thread", async () => {
    const server = await OpenAiModelServer.start([
      { exec: 'echo one > a.txt', usage: { input: 1000, cached: 100, output: 10 } },
      { say: 'first done', usage: { input: 2000, cached: 200, output: 20 } },
      { exec: 'echo two >> a.txt', usage: { input: 3000, cached: 300, output: 30 } },
      { say: 'second done', usage: { input: 4000, cached: 400, output: 40 } },
    ]);
    try {
      const { dir, run } = await codexPlace(server);
      const first = await run([...FLAGS, 'the task']);
      const thread = first.find((e) => e.type === 'thread.started')?.thread_id as string;
      expect(thread).toMatch(/^[0-9a-f-]{36}$/);
      expect(first.filter((e) => e.type === 'turn.completed').map((e) => e.usage)).toEqual([
        expect.objectContaining({ input_tokens: 3000, cached_input_tokens: 300, output_tokens: 30 }),
      ]);
      const resumed = await run(['resume', ...FLAGS, thread, 'the steer']);
      expect(resumed.find((e) => e.type === 'thread.started')?.thread_id).toBe(thread);
      const usage = resumed.filter((e) => e.type === 'turn.completed').map((e) => e.usage);
      // Measured, and what the runtime's count rests on: a resumed thread's turn.completed
      // carries the thread's running total (both runs' requests), not its own turn's.
      expect(usage).toEqual([expect.objectContaining({ input_tokens: 10000, cached_input_tokens: 1000, output_tokens: 100 })]);
      expect(await readFile(join(dir, 'wt', 'a.txt'), 'utf8')).toBe('one\ntwo\n');
      const conv = server.conversation(thread);
      expect(conv.map((r) => r.index)).toEqual([0, 1, 2, 3]);
      expect(conv[2]!.userTexts.at(-1)).toBe('the steer');
      expect(conv[1]!.outputs.at(-1)).toMatch(/Process exited with code 0/);
      server.verify({ allStepsUsed: true });
    } finally {
      await server.stop();
    }
  });

  it('a request past the script is answered 400 once (no retry storm), and verify() names it', async () => {
    const server = await OpenAiModelServer.start([{ exec: 'true' }]);
    try {
      const { run } = await codexPlace(server);
      await run([...FLAGS, 'the task'], 1);
      expect(server.requests).toHaveLength(2);
      expect(() => server.verify()).toThrow(/request 1 of conversation .* is past its script/);
    } finally {
      await server.stop();
    }
  });
});
