// The codex runtime with the real Codex CLI (the devDependency) in real lanes, inside
// bubblewrap, against the Responses-API stub: a drain lands what the scripted model wrote
// through exec_command, with exactly the usage the stub reported debited; a steer sent while
// Codex works reaches it by resuming the same thread, the agent acts on it, and the landing's
// receipt lists it. A team config's secrets stay out of the agent's reach.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../../harness/git-env.js';
import {
  buildSteered,
  CLI_PATH,
  expectKilledAtTimeout,
  expectRefusedModelFails,
  expectSteerResumed,
  expectRunsFromHome,
  homeScript,
  mainFile,
  steeredScript,
  type RuntimeUnderTest,
} from '../../harness/lane-runtimes.js';
import { itemStatus, laneSession, remoteWithItems, laneRun } from '../../harness/lanes.js';
import { OpenAiModelServer } from '../../harness/model-server-openai.js';

const CODEX: RuntimeUnderTest = { runtime: 'codex', cli: 'Codex' };

/** A team's CODEX_HOME naming the stub as its provider, and the lane's environment for it. */
async function codexEnv(server: OpenAiModelServer): Promise<Record<string, string>> {
  const team = await tempDir('codex-team');
  await writeFile(join(team, 'config.toml'), server.codexConfig({ model: 'stub-codex', envKey: 'OPENAI_API_KEY' }));
  await writeFile(join(team, 'auth.json'), '{"OPENAI_API_KEY":"the person login, never copied"}');
  return { CODEX_HOME: team, OPENAI_API_KEY: 'stub-key', PATH: CLI_PATH };
}

describe('the codex runtime', () => {
  afterAll(cleanupTemp);

  it('a drain lands what Codex wrote through exec_command; usage and the budget are what the model reported', async () => {
    const server = await OpenAiModelServer.start([
      {
        exec: 'printf "written by codex\\n" > codex.txt && git add codex.txt && git commit -qm "codex: write"',
        usage: { input: 1200, cached: 200, output: 30 },
      },
      { say: 'codex.txt is written and committed', usage: { input: 1500, cached: 1000, output: 12 } },
    ]);
    try {
      const remote = await remoteWithItems([{ slug: 'write-file' }]);
      const lane = await laneSession(remote, 'lane', await codexEnv(server));
      const r = await lane.abcd(['drain', '--runtime', 'codex', '--json', '--agent-timeout', '120s'], { timeoutMs: 150_000 });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.json).toMatchObject({ outcome: 'landed', sandbox: 'bwrap' });
      expect(await mainFile(remote, 'codex.txt')).toBe('written by codex');
      expect(await itemStatus(remote, 'write-file')).toBe('done');

      const reported = server.reported();
      expect(reported).toEqual({ input: 2700, cached: 1200, output: 42, requests: 2 });
      // The cycle's tokens are what was sent and answered: input (cached included) plus output.
      const [cycle] = laneRun(r).record.cycles;
      expect(cycle).toMatchObject({ item: 'write-file', outcome: 'landed', usage: 2742 });
      const budget = await lane.abcd(['budget', '--json']);
      expect(budget.json).toMatchObject({ spent: 2742, debits: 1 });

      // What Codex sent: the lane's prompt with the item, the model the team's config names,
      // and the command's output back.
      const [first, second] = server.requests;
      expect(first!.body.model).toBe('stub-codex');
      expect(first!.userTexts.at(-1)).toContain('You are an unattended agent in an abcd lane');
      expect(first!.userTexts.at(-1)).toContain('local:item:write-file');
      expect(second!.thread).toBe(first!.thread);
      expect(second!.outputs.at(-1)).toMatch(/Process exited with code 0/);
      // The transcript: the command Codex ran with its exit, its message, its usage; no JSON.
      const t = (await lane.abcd(['logs'])).stdout.split('\n');
      expect(t).toContain('── prompt (codex) ──');
      expect(
        t.some((l) => l.startsWith('→ $ ') && l.includes('codex.txt') && l.endsWith('(exit 0)')),
        t.join('\n'),
      ).toBe(true);
      expect(t).toContain('  codex.txt is written and committed');
      expect(
        t.some((l) => /^usage: \d+ in \(\d+ cached\), \d+ out tokens$/.test(l)),
        t.join('\n'),
      ).toBe(true);
      expect(t.filter((l) => l.trimStart().startsWith('{'))).toEqual([]);
      server.verify({ allStepsUsed: true });
    } finally {
      await server.stop();
    }
  }, 180_000);

  it('a steer sent while Codex works resumes the same thread with the envelope; the agent acts on it; the receipt lists it', async () => {
    const steered = steeredScript('codex');
    const server = await OpenAiModelServer.start(steered.steps);
    try {
      const remote = await remoteWithItems([{ slug: 'notes' }], { lanes: { runtime: 'codex', steer: { poll: '500ms' } } });
      const lane = await laneSession(remote, 'lane', { ABCD_SESSION: 'lane', ...(await codexEnv(server)) });
      // The resumed run's total already holds the first run's: the cycle takes the latest.
      const done = await buildSteered(CODEX, remote, lane, server, steered.release);
      // One conversation: the envelope arrived in a request of the same thread after the first turn.
      const threads = new Set(server.requests.map((x) => x.thread));
      expect(threads.size).toBe(1);
      await expectSteerResumed(remote, done, server);
    } finally {
      steered.release();
      await server.stop();
    }
  }, 200_000);

  it("Codex installed under HOME (hidden by the sandbox): its launcher's folder and its platform package are shown, and it runs", async () => {
    const server = await OpenAiModelServer.start(homeScript('codex'));
    try {
      const remote = await remoteWithItems([{ slug: 'from-home' }]);
      const lane = await laneSession(remote, 'lane', await codexEnv(server));
      await expectRunsFromHome(CODEX, remote, lane, server, { scope: '@openai', launcher: '@openai/codex/bin/codex.js' });
    } finally {
      await server.stop();
    }
  }, 180_000);

  it("a team config's secrets never reach the agent: not in its copy of the config, not through the team's folder; the log names what was left out", async () => {
    // The team's folder outside /tmp and HOME, which the sandbox hides anyway.
    const place = await mkdtemp('/var/tmp/abcd-codex-team-');
    const secrets = [
      'experimental_bearer_token = "canary-bearer"',
      'http_headers = { "X-Team-Token" = "canary-header" }',
      '[mcp_servers.tools]',
      'command = "tools-server"',
      'enabled = false',
      'env = { TOOLS_TOKEN = "canary-mcp-env" }',
      '',
    ];
    const server = await OpenAiModelServer.start([
      // What the agent's code can read: the team's config where it lies, and its own copy.
      {
        exec:
          `{ cat ${join(place, 'config.toml')} 2>&1; cat ../codex-home/config.toml 2>&1; } > seen.txt; ` +
          'git add seen.txt && git commit -qm "codex: what it saw"',
      },
      { say: 'done' },
    ]);
    try {
      await writeFile(
        join(place, 'config.toml'),
        server.codexConfig({ model: 'stub-codex', envKey: 'OPENAI_API_KEY' }) + secrets.join('\n'),
      );
      const remote = await remoteWithItems([{ slug: 'look' }]);
      const lane = await laneSession(remote, 'lane', { ...(await codexEnv(server)), CODEX_HOME: place });
      const r = await lane.abcd(['drain', '--runtime', 'codex', '--json', '--agent-timeout', '120s'], { timeoutMs: 150_000 });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.json).toMatchObject({ outcome: 'landed', sandbox: 'bwrap' });
      const seen = await mainFile(remote, 'seen.txt');
      expect(seen).toContain(`cat: ${join(place, 'config.toml')}: No such file or directory`);
      expect(seen).toContain('model_provider = "stub"');
      for (const c of ['canary-bearer', 'canary-header', 'canary-mcp-env']) expect(seen).not.toContain(c);
      // Its provider's URL in the copy is abcd's gateway, not the team's.
      expect(seen).toContain('base_url = "http://127.0.0.2:4141/v1"');
      expect(seen).not.toContain(server.baseUrl);
      // The model was still reached through the team's provider, with the team's model.
      expect(server.requests[0]!.body.model).toBe('stub-codex');
      const log = await lane.abcd(['logs', r.json.runId]);
      expect(log.stdout).toMatch(
        /\[abcd: Codex's config: the model settings of \S+config\.toml; left out, as the agent can read this copy: model_providers\.stub\.experimental_bearer_token, model_providers\.stub\.http_headers, mcp_servers; its provider stub asks abcd's model gateway, which holds OPENAI_API_KEY\]/,
      );
      expect(log.stdout).not.toMatch(/canary/);
      server.verify({ allStepsUsed: true });
    } finally {
      await server.stop();
      await rm(place, { recursive: true, force: true });
    }
  }, 180_000);

  it('a model that refuses: the cycle fails with what Codex said, not its raw JSON, and nothing lands', async () => {
    const server = await OpenAiModelServer.start([]);
    try {
      const remote = await remoteWithItems([{ slug: 'refused' }]);
      const lane = await laneSession(remote, 'lane', await codexEnv(server));
      await expectRefusedModelFails(CODEX, remote, lane, server, {
        said: /^the agent exited 1: .*model stub: request 0 of conversation \S+ is past its script/,
        raw: /thread\.started|turn\.started|"item_/,
      });
    } finally {
      await server.stop();
    }
  }, 180_000);

  it('past its timeout, Codex is killed with what it started: its request to the model is dropped, nothing lands', async () => {
    const server = await OpenAiModelServer.start([() => new Promise(() => undefined)]);
    try {
      const remote = await remoteWithItems([{ slug: 'slow' }]);
      const lane = await laneSession(remote, 'lane', await codexEnv(server));
      await expectKilledAtTimeout(CODEX, remote, lane, server);
    } finally {
      await server.stop();
    }
  }, 180_000);
});
