// The gemini runtime with the real Gemini CLI (the devDependency) in real lanes, inside
// bubblewrap, against the Gemini API stub through abcd's model gateway: a drain lands what the
// scripted model wrote through run_shell_command, the stub gets the real key while the agent's
// env holds only a placeholder, and exactly the usage the API answered is debited; a steer sent
// while the CLI works reaches it by resuming the same session (`-r`), the agent acts on it, and
// the landing's receipt lists it; a budget the first cycle crosses stops the drain before the
// next, and one the first answer crosses is stopped by the gateway in flight.
import { constants } from 'node:fs';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PLACEHOLDER_KEY } from '../../../src/lanes/runtimes/gateway-link.js';
import { cleanupTemp } from '../../harness/git-env.js';
import {
  buildSteered,
  CLI_PATH,
  expectKeyNamingRefused,
  expectKilledAtTimeout,
  expectRefusedModelFails,
  expectPoolStopsInFlight,
  expectSteerResumed,
  expectUnsandboxedOwnUsage,
  expectRunsFromHome,
  homeScript,
  mainFile,
  poolScript,
  steeredScript,
  type RuntimeUnderTest,
} from '../../harness/lane-runtimes.js';
import { itemStatus, laneRun, laneSession, remoteWithItems } from '../../harness/lanes.js';
import { GeminiModelServer } from '../../harness/model-server-gemini.js';

const GEMINI_CLI: RuntimeUnderTest = { runtime: 'gemini', cli: 'Gemini CLI' };
const KEY = 'stub-gemini-key';
// A model named: without one the CLI routes ("auto") through a classifier request of its own first.
const GEMINI = { gemini: { model: 'gemini-stub' } };

/** The lane's environment for Gemini CLI against the stub. */
function geminiEnv(server: GeminiModelServer): Record<string, string> {
  return { GEMINI_API_KEY: KEY, GOOGLE_GEMINI_BASE_URL: server.baseUrl, PATH: CLI_PATH };
}

/** The first of `places` this process may write in. */
async function writableFolder(places: string[]): Promise<string> {
  for (const p of places)
    if (
      await access(p, constants.W_OK).then(
        () => true,
        () => false,
      )
    )
      return p;
  throw new Error(`none of ${places.join(', ')} is writable`);
}

describe('the gemini runtime', () => {
  afterAll(cleanupTemp);

  it("a drain lands what Gemini CLI wrote through run_shell_command; usage and the budget are what the model reported; a team's GEMINI_CLI_HOME stays hidden", async () => {
    // A folder no sandbox empties on its own (/tmp, /var/tmp and HOME are): only naming it in GEMINI_CLI_HOME hides it.
    const team = await mkdtemp(join(await writableFolder(['/var/cache', join(import.meta.dirname, '../../..')]), 'abcd-gemini-team-'));
    await writeFile(join(team, 'canary.txt'), 'canary-team-settings');
    const server = await GeminiModelServer.start([
      {
        exec:
          `{ printf "written by gemini\\n"; cat ${join(team, 'canary.txt')} 2>&1; } > gemini.txt; env > agent-env.txt && ` +
          'git add gemini.txt agent-env.txt && git commit -qm "gemini: write"',
        usage: { input: 1200, cached: 200, output: 30 },
      },
      { say: 'gemini.txt is written and committed', usage: { input: 1500, cached: 1000, output: 12 } },
    ]);
    try {
      const remote = await remoteWithItems([{ slug: 'write-file' }], { lanes: GEMINI });
      const lane = await laneSession(remote, 'lane', { ...geminiEnv(server), GEMINI_CLI_HOME: team });
      const r = await lane.abcd(['drain', '--runtime', 'gemini', '--json', '--agent-timeout', '120s'], { timeoutMs: 150_000 });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.json).toMatchObject({ outcome: 'landed', sandbox: 'bwrap' });
      const written = await mainFile(remote, 'gemini.txt');
      expect(written).toContain('written by gemini');
      expect(written).toContain(`cat: ${join(team, 'canary.txt')}: No such file or directory`);
      expect(written).not.toContain('canary-team-settings');
      // The agent held the gateway's address and a placeholder, never the key or the real endpoint.
      const agentEnv = await mainFile(remote, 'agent-env.txt');
      expect(agentEnv).not.toContain(KEY);
      expect(agentEnv).not.toContain(server.baseUrl);
      expect(agentEnv.split('\n')).toEqual(
        expect.arrayContaining([`GEMINI_API_KEY=${PLACEHOLDER_KEY}`, 'GOOGLE_GEMINI_BASE_URL=http://127.0.0.2:4141', 'NO_PROXY=127.0.0.2']),
      );
      // The CLI had the egress proxy too (it tunnels even http:// through one), and NO_PROXY took it past it to the gateway.
      expect(agentEnv).toMatch(/^HTTPS_PROXY=http:\/\//m);
      expect(await itemStatus(remote, 'write-file')).toBe('done');

      expect(server.reported()).toEqual({ input: 2700, cached: 1200, output: 42, requests: 2 });
      // The cycle's tokens are what was sent and answered: input (cached included) plus output.
      const [cycle] = laneRun(r).record.cycles;
      expect(cycle).toMatchObject({ item: 'write-file', outcome: 'landed', usage: 2742 });
      expect(cycle.spend).toMatchObject({ source: 'api', inputTokens: 1500, cacheReadTokens: 1200, outputTokens: 42, turns: 2 });
      expect((await lane.abcd(['budget', '--json'])).json).toMatchObject({ spent: 2742, debits: 1 });

      // What Gemini CLI sent: the lane's prompt with the item, the key, and the command's output back.
      const [first, second] = server.requests;
      expect(first!.key).toBe(KEY);
      expect(server.requests.map((q) => q.model)).toEqual(['gemini-stub', 'gemini-stub']);
      expect(first!.userTexts.at(-1)).toContain('You are an unattended agent in an abcd lane');
      expect(first!.userTexts.at(-1)).toContain('local:item:write-file');
      expect(second!.outputs).toHaveLength(1);
      // The transcript: the command the CLI ran, its message, its usage; no JSON.
      const t = (await lane.abcd(['logs'])).stdout.split('\n');
      // Every request went through the gateway, and none was refused.
      expect(t.filter((l) => l.startsWith('[abcd] model: ')).map((l) => l.split(' (')[0])).toEqual([
        '[abcd] model: forwarded POST /v1beta/models/gemini-stub:streamGenerateContent 200',
        '[abcd] model: forwarded POST /v1beta/models/gemini-stub:streamGenerateContent 200',
      ]);
      expect(t).toContain('── prompt (gemini) ──');
      expect(
        t.some((l) => l.startsWith('→ run_shell_command ') && l.includes('gemini.txt')),
        t.join('\n'),
      ).toBe(true);
      expect(t).toContain('  gemini.txt is written and committed');
      expect(
        t.some((l) => /^result: success, 2700 in \(1200 cached\), 42 out tokens, 1 tool call\(s\), [\d.]+s$/.test(l)),
        t.join('\n'),
      ).toBe(true);
      expect(t.filter((l) => l.trimStart().startsWith('{'))).toEqual([]);
      server.verify({ allStepsUsed: true });
    } finally {
      await server.stop();
      await rm(team, { recursive: true, force: true });
    }
  }, 180_000);

  it('a steer sent while Gemini CLI works resumes the same session with the envelope; the agent acts on it; the receipt lists it', async () => {
    const steered = steeredScript('gemini');
    const server = await GeminiModelServer.start(steered.steps);
    try {
      const remote = await remoteWithItems([{ slug: 'notes' }], { lanes: { runtime: 'gemini', ...GEMINI, steer: { poll: '500ms' } } });
      const lane = await laneSession(remote, 'lane', { ABCD_SESSION: 'lane', ...geminiEnv(server) });
      // Each run's result counts its own requests, and the cycle sums them.
      const done = await buildSteered(GEMINI_CLI, remote, lane, server, steered.release);
      // One conversation: the resumed request carries the first turn's answer before the envelope.
      expect(JSON.stringify(done.resumed.body.contents)).toContain('first part done');
      await expectSteerResumed(remote, done, server);
    } finally {
      steered.release();
      await server.stop();
    }
  }, 200_000);

  it('a budget the first cycle crosses: that cycle lands, the drain ends budget-exhausted, the next item never starts', async () => {
    const server = await GeminiModelServer.start([
      { exec: 'echo one > one.txt && git add one.txt && git commit -qm "gemini: one"', usage: { input: 300, output: 20 } },
      { say: 'done', usage: { input: 400, output: 10 } },
    ]);
    try {
      const remote = await remoteWithItems([{ slug: 'a-crosses' }, { slug: 'b-waits' }], { lanes: GEMINI });
      const lane = await laneSession(remote, 'lane', geminiEnv(server));
      expect((await lane.abcd(['budget', 'set', '500'])).code).toBe(0);
      const r = await lane.abcd(['drain', '--runtime', 'gemini', '--json', '--lanes', '1', '--agent-timeout', '120s'], {
        timeoutMs: 150_000,
      });
      expect(r.code, r.stdout + r.stderr).toBe(3);
      expect(r.json.refusal.code).toBe('budget-exhausted');
      expect(r.json.refusal.data).toMatchObject({ exhausted: ['tokens'], remaining: 0, pool: 500, spent: 730 });
      const record = r.json.refusal.data.result.record;
      expect(record.cycles).toMatchObject([{ item: 'a-crosses', outcome: 'landed', usage: 730 }]);
      expect(record.cycles).toHaveLength(1);
      expect(await itemStatus(remote, 'a-crosses')).toBe('done');
      expect(await itemStatus(remote, 'b-waits')).toBe('ready');
      // The second item's agent never asked the model.
      expect(server.requests).toHaveLength(2);
      expect((await lane.abcd(['budget'])).stdout).toMatch(/per runtime: gemini 730 tokens/);
      server.verify({ allStepsUsed: true });
    } finally {
      await server.stop();
    }
  }, 180_000);

  it('a pool smaller than the first answer: the gateway stops the next request, the cycle ends budget-exhausted, the debit is what was answered', async () => {
    const server = await GeminiModelServer.start(poolScript('gemini'));
    try {
      const remote = await remoteWithItems([{ slug: 'long' }], { lanes: GEMINI });
      const lane = await laneSession(remote, 'spender', geminiEnv(server));
      // One answer was sent (the 400 is not retried).
      await expectPoolStopsInFlight(GEMINI_CLI, remote, lane, server);
      expect(await itemStatus(remote, 'long')).toBe('ready');
    } finally {
      await server.stop();
    }
  }, 180_000);

  it('without a model the CLI routes: its classifier request goes through the gateway too, and its tokens count', async () => {
    const server = await GeminiModelServer.start([
      { say: '{"reasoning": "a small task", "model_choice": "flash"}', usage: { input: 300, output: 8 } },
      { say: 'nothing to do', usage: { input: 900, output: 4 } },
    ]);
    try {
      const remote = await remoteWithItems([{ slug: 'routed' }]);
      const lane = await laneSession(remote, 'lane', geminiEnv(server));
      const r = await lane.abcd(['drain', '--runtime', 'gemini', '--json', '--agent-timeout', '120s'], { timeoutMs: 150_000 });
      const log = (await lane.abcd(['logs'])).stdout;
      const asked = log.split('\n').filter((l) => l.startsWith('[abcd] model: '));
      expect(asked[0], log).toMatch(/^\[abcd\] model: forwarded POST \/v1beta\/models\/[\w.-]+:generateContent 200 /);
      expect(
        asked.slice(1).every((l) => /:streamGenerateContent 200 /.test(l)),
        log,
      ).toBe(true);
      expect(laneRun(r).record.cycles[0].spend).toMatchObject({ source: 'api', inputTokens: 1200, outputTokens: 12, turns: 2 });
      server.verify({ allStepsUsed: true });
    } finally {
      await server.stop();
    }
  }, 180_000);

  it('naming the key for the agent is refused before anything is claimed: the gateway passes it', async () => {
    for (const name of ['GEMINI_API_KEY', 'GOOGLE_API_KEY']) {
      const remote = await remoteWithItems([{ slug: 'named' }], { lanes: { gemini: { env: [name] } } });
      const lane = await laneSession(remote, 'lane', { GEMINI_API_KEY: KEY, PATH: CLI_PATH });
      await expectKeyNamingRefused(GEMINI_CLI, lane, name);
      expect(await itemStatus(remote, 'named')).toBe('ready');
    }
  }, 60_000);

  it('unsandboxed there is no gateway: Gemini CLI is passed GEMINI_API_KEY, and usage is its own report', async () => {
    const server = await GeminiModelServer.start([{ say: 'nothing to do', usage: { input: 70, output: 5 } }]);
    try {
      const remote = await remoteWithItems([{ slug: 'plain' }], { lanes: GEMINI });
      const lane = await laneSession(remote, 'lane', geminiEnv(server));
      await expectUnsandboxedOwnUsage(GEMINI_CLI, lane, server, KEY);
    } finally {
      await server.stop();
    }
  }, 180_000);

  it('Gemini CLI installed under HOME (hidden by the sandbox): its folder is shown, and it runs', async () => {
    const server = await GeminiModelServer.start(homeScript('gemini'));
    try {
      const remote = await remoteWithItems([{ slug: 'from-home' }], { lanes: GEMINI });
      const lane = await laneSession(remote, 'lane', geminiEnv(server));
      await expectRunsFromHome(GEMINI_CLI, remote, lane, server, { scope: '@google', launcher: '@google/gemini-cli/bundle/gemini.js' });
    } finally {
      await server.stop();
    }
  }, 180_000);

  it('a model that refuses: the cycle fails with what Gemini CLI said, not its raw JSON, and nothing lands', async () => {
    const server = await GeminiModelServer.start([]);
    try {
      const remote = await remoteWithItems([{ slug: 'refused' }], { lanes: GEMINI });
      const lane = await laneSession(remote, 'lane', geminiEnv(server));
      // Asked once: a 400 is not retried.
      await expectRefusedModelFails(GEMINI_CLI, remote, lane, server, {
        said: /^the agent exited \d+: .*model stub: request 0 is past the script/,
        raw: /"type":"|session_id/,
      });
    } finally {
      await server.stop();
    }
  }, 180_000);

  it('past its timeout, Gemini CLI is killed with what it started: its request to the model is dropped, nothing lands', async () => {
    const server = await GeminiModelServer.start([() => new Promise(() => undefined)]);
    try {
      const remote = await remoteWithItems([{ slug: 'slow' }], { lanes: GEMINI });
      const lane = await laneSession(remote, 'lane', geminiEnv(server));
      await expectKilledAtTimeout(GEMINI_CLI, remote, lane, server);
    } finally {
      await server.stop();
    }
  }, 180_000);
});
