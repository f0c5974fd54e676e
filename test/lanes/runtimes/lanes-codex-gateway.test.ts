// The real Codex CLI in a bubblewrap lane asks its model only through abcd's model gateway: the
// Responses-API stub receives the real key on every request while the agent's environment and
// its CODEX_HOME config hold only a placeholder and the gateway's address; the cycle's usage is
// what the stub's `response.completed` answers said; a pool smaller than the first answer stops
// the next request and the cycle ends budget-exhausted. A provider that speaks another API than
// the Responses API is refused before its agent starts.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../../harness/git-env.js';
import {
  CLI_PATH as PATH,
  expectKeyNamingRefused,
  expectPoolStopsInFlight,
  expectUnsandboxedOwnUsage,
  mainFile,
  poolScript,
  type RuntimeUnderTest,
} from '../../harness/lane-runtimes.js';
import { itemStatus, laneRun, laneSession, remoteWithItems } from '../../harness/lanes.js';
import { OpenAiModelServer } from '../../harness/model-server-openai.js';

const CODEX: RuntimeUnderTest = { runtime: 'codex', cli: 'Codex' };
const REAL_KEY = 'canary-openai-real-key-5e21';
const PLACEHOLDER = 'abcd-model-gateway-placeholder';
// What a prompt-injected agent would look at: its environment and Codex's own config.
const LOOK = '{ env; cat "$CODEX_HOME/config.toml"; } > seen.txt; git add seen.txt && git commit -qm "codex: what it saw"';

describe('the codex runtime through the model gateway', () => {
  afterAll(cleanupTemp);

  it("a team provider's key is read from abcd's environment only: the server gets it, the agent's env and config do not; usage is the API's", async () => {
    const server = await OpenAiModelServer.start([
      { exec: LOOK, usage: { input: 1200, cached: 200, output: 30 } },
      { say: 'looked', usage: { input: 1500, cached: 1000, output: 12 } },
    ]);
    try {
      const team = await tempDir('codex-team');
      // The provider names its own variable; no env list names it, and abcd alone holds it.
      await writeFile(join(team, 'config.toml'), server.codexConfig({ model: 'stub-codex', envKey: 'TEAM_OPENAI_KEY' }));
      const remote = await remoteWithItems([{ slug: 'look' }]);
      const lane = await laneSession(remote, 'lane', { CODEX_HOME: team, TEAM_OPENAI_KEY: REAL_KEY, PATH });
      const r = await lane.abcd(['drain', '--runtime', 'codex', '--json', '--agent-timeout', '120s'], { timeoutMs: 150_000 });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.json).toMatchObject({ outcome: 'landed', sandbox: 'bwrap' });
      server.verify({ allStepsUsed: true });

      // Every request reached the server with the real key, through the gateway.
      expect(server.requests.map((q) => q.key)).toEqual([REAL_KEY, REAL_KEY]);
      expect(server.requests[0]!.body.model).toBe('stub-codex');
      // The agent saw a placeholder in the provider's variable and the gateway's address as its provider.
      const seen = await mainFile(remote, 'seen.txt');
      expect(seen).toContain(`TEAM_OPENAI_KEY=${PLACEHOLDER}`);
      expect(seen).toMatch(/base_url = "http:\/\/127\.0\.0\.2:4141\/v1"/);
      expect(seen).toContain('model_provider = "stub"');
      expect(seen).toContain('supports_websockets = false');
      expect(seen).not.toContain(REAL_KEY);
      expect(seen).not.toContain(server.baseUrl);
      // What the command printed went back to the model: no key in that either.
      expect(JSON.stringify(server.requests.map((q) => q.outputs))).not.toContain(REAL_KEY);

      // The cycle's usage is what the two response.completed events said, read by the gateway.
      const [cycle] = laneRun(r).record.cycles;
      expect(cycle.spend).toMatchObject({
        inputTokens: 2700 - 1200,
        cacheReadTokens: 1200,
        outputTokens: 42,
        turns: 2,
        source: 'api',
        sessionId: server.requests[0]!.thread,
      });
      expect(cycle.usage).toBe(2742);
      const log = (await lane.abcd(['logs', r.json.runId])).stdout;
      expect(log).toMatch(/\[abcd\] model: forwarded POST \/v1\/responses 200 \(1000 in, 30 out, 200 cache read\)/);
      expect(log).toContain("its provider stub asks abcd's model gateway, which holds TEAM_OPENAI_KEY");
      // Codex asked for nothing but the Responses endpoint.
      expect(log).not.toMatch(/\[abcd\] model: (refused|failed)/);
      expect(log).not.toContain(REAL_KEY);
    } finally {
      await server.stop();
    }
  }, 180_000);

  it("with no config, Codex's own provider goes through the gateway to OPENAI_BASE_URL; OPENAI_API_KEY is not passed to the agent", async () => {
    const server = await OpenAiModelServer.start([{ exec: LOOK }, { say: 'looked' }]);
    try {
      const remote = await remoteWithItems([{ slug: 'bare' }], { lanes: { codex: { model: 'stub-codex' } } });
      const lane = await laneSession(remote, 'lane', { OPENAI_API_KEY: REAL_KEY, OPENAI_BASE_URL: server.baseUrl, PATH });
      const r = await lane.abcd(['drain', '--runtime', 'codex', '--json', '--agent-timeout', '120s'], { timeoutMs: 150_000 });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      server.verify({ allStepsUsed: true });
      expect(server.requests.map((q) => q.key)).toEqual([REAL_KEY, REAL_KEY]);
      const seen = await mainFile(remote, 'seen.txt');
      expect(seen).toContain(`OPENAI_API_KEY=${PLACEHOLDER}`);
      expect(seen).toMatch(/^OPENAI_BASE_URL=http:\/\/127\.0\.0\.2:4141\/v1$/m);
      expect(seen).toContain('model_provider = "abcd-gateway"');
      expect(seen).not.toContain(REAL_KEY);
      expect(seen).not.toContain(server.baseUrl);
      expect(laneRun(r).record.cycles[0].spend).toMatchObject({ source: 'api', turns: 2 });
    } finally {
      await server.stop();
    }
  }, 180_000);

  it('unsandboxed there is no gateway: Codex is passed OPENAI_API_KEY as before, and usage is its own report', async () => {
    const server = await OpenAiModelServer.start([{ say: 'nothing to do', usage: { input: 70, output: 5 } }]);
    try {
      const team = await tempDir('codex-team');
      await writeFile(join(team, 'config.toml'), server.codexConfig({ model: 'stub-codex', envKey: 'OPENAI_API_KEY' }));
      const remote = await remoteWithItems([{ slug: 'plain' }]);
      const lane = await laneSession(remote, 'lane', { CODEX_HOME: team, OPENAI_API_KEY: REAL_KEY, PATH });
      await expectUnsandboxedOwnUsage(CODEX, lane, server, REAL_KEY);
    } finally {
      await server.stop();
    }
  }, 180_000);

  it('naming the key for the agent is refused before anything is claimed: the gateway passes it', async () => {
    const remote = await remoteWithItems([{ slug: 'named' }], { lanes: { codex: { env: ['OPENAI_API_KEY'] } } });
    const lane = await laneSession(remote, 'lane', { OPENAI_API_KEY: REAL_KEY, PATH });
    await expectKeyNamingRefused(CODEX, lane, 'OPENAI_API_KEY');
  }, 60_000);

  it('a pool smaller than the first answer: the gateway stops the next request, the cycle ends budget-exhausted, the debit is what was answered', async () => {
    const server = await OpenAiModelServer.start(poolScript('codex'));
    try {
      const team = await tempDir('codex-team');
      await writeFile(join(team, 'config.toml'), server.codexConfig({ model: 'stub-codex', envKey: 'OPENAI_API_KEY' }));
      const remote = await remoteWithItems([{ slug: 'long' }]);
      const lane = await laneSession(remote, 'spender', { CODEX_HOME: team, OPENAI_API_KEY: REAL_KEY, PATH });
      await expectPoolStopsInFlight(CODEX, remote, lane, server);
    } finally {
      await server.stop();
    }
  }, 180_000);

  it('a Codex provider that speaks chat completions is refused under the gateway, naming it; the model is never asked', async () => {
    const server = await OpenAiModelServer.start([{ say: 'never asked' }]);
    try {
      const team = await tempDir('codex-team');
      const chat = server
        .codexConfig({ model: 'stub-codex', envKey: 'TEAM_OPENAI_KEY' })
        .replace('wire_api = "responses"', 'wire_api = "chat"');
      await writeFile(join(team, 'config.toml'), chat);
      const remote = await remoteWithItems([{ slug: 'chatty' }]);
      const lane = await laneSession(remote, 'lane', { CODEX_HOME: team, TEAM_OPENAI_KEY: 'sk-team', PATH });
      const status = await itemStatus(remote, 'chatty');
      const r = await lane.abcd(['drain', '--runtime', 'codex', '--json', '--agent-timeout', '60s'], { timeoutMs: 120_000 });
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.json.refusal).toMatchObject({ code: 'usage', data: { provider: 'stub', wireApi: 'chat' } });
      expect(r.json.refusal.message).toContain('set wire_api = "responses"');
      expect(server.requests).toEqual([]);
      // The cycle stopped before the agent started: the item is as it was, for a lane that can ask its provider.
      expect(await itemStatus(remote, 'chatty')).toBe(status);
      // It was claimed with the cycle (the team's config is read with the cycle's Codex home) and released.
      const claim = await execa('git', ['-C', remote.dir, 'log', '-1', '--format=%s', 'refs/heads/abcd/claims/local/item/chatty']);
      expect(claim.stdout).toBe('lane releases chatty: the cycle did not land');
    } finally {
      await server.stop();
    }
  }, 150_000);
});
