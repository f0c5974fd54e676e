// What a team meets first with the claude runtime, named: a model key set where abcd runs but
// passed to no agent refuses before any claim, naming the variable and the config key; a model
// API that never answers ends the cycle with a reason that names its host and the last error
// the real Claude Code reported in its `api_retry` messages (which the live line shows too).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../../harness/git-env.js';
import { laneRun, laneSession, remoteWithItems } from '../../harness/lanes.js';

afterAll(cleanupTemp);

const CLAUDE = join(import.meta.dirname, '..', '..', '..', 'node_modules', '.bin', 'claude');

/** A model API that is up (HEAD /) but answers every request with 503, as an overloaded or broken proxy. */
async function failingModel(): Promise<{ url: string; posts: () => number; close: () => Promise<void> }> {
  let posts = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    if (req.method === 'POST') posts++;
    res.writeHead(req.method === 'HEAD' ? 200 : 503, { 'content-type': 'application/json' });
    res.end(req.method === 'HEAD' ? '' : JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'upstream down' } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posts: () => posts,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

describe('the claude runtime names the failures a team meets first', () => {
  it('unsandboxed, ANTHROPIC_API_KEY set for abcd but in no env list refuses before claiming, naming it and lanes.claude.env', async () => {
    const remote = await remoteWithItems([{ slug: 'keyless' }], { lanes: { runtime: 'claude', claude: { program: CLAUDE } } });
    const s = await laneSession(remote, 'keyless');
    const r = await s.abcd(['build', 'keyless', '--json', '--sandbox', 'none'], { env: { ANTHROPIC_API_KEY: 'sk-test-not-a-key' } });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.json.refusal).toMatchObject({ code: 'usage', data: { name: 'ANTHROPIC_API_KEY', key: 'lanes.claude.env' } });
    expect(r.json.refusal.message).toContain('Add "ANTHROPIC_API_KEY" to lanes.claude.env');
    expect(r.stdout).not.toContain('sk-test-not-a-key');
    expect([...(await remote.refs()).keys()].filter((x) => x.startsWith('refs/heads/abcd/'))).toEqual([]);
  }, 60_000);

  it('sandboxed, ANTHROPIC_API_KEY named for the agent refuses before claiming: the gateway holds it', async () => {
    const config = { lanes: { runtime: 'claude', claude: { program: CLAUDE, env: ['ANTHROPIC_API_KEY'] } } };
    const remote = await remoteWithItems([{ slug: 'named' }], config);
    const s = await laneSession(remote, 'named');
    const r = await s.abcd(['build', 'named', '--json'], { env: { ANTHROPIC_API_KEY: 'sk-test-not-a-key' } });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.json.refusal).toMatchObject({ code: 'usage', data: { name: 'ANTHROPIC_API_KEY', key: 'lanes.claude.env' } });
    expect(r.json.refusal.message).toContain('model gateway');
    expect(r.stdout).not.toContain('sk-test-not-a-key');
    expect([...(await remote.refs()).keys()].filter((x) => x.startsWith('refs/heads/abcd/'))).toEqual([]);
  }, 60_000);

  it('a model API that answers only 503 ends in a timeout whose reason names the host and the last error', async () => {
    const model = await failingModel();
    try {
      const config = { lanes: { runtime: 'claude', claude: { program: CLAUDE } } };
      const remote = await remoteWithItems([{ slug: 'down' }], config);
      const s = await laneSession(remote, 'down');
      const r = await s.abcd(['build', 'down', '--json', '--agent-timeout', '8s'], {
        env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'sk-test-not-a-key' },
        timeoutMs: 90_000,
      });
      expect(r.code, r.stdout + r.stderr).toBe(4);
      const cycle = laneRun(r).record.cycles[0];
      const host = new URL(model.url).host;
      expect(cycle.outcome).toBe('timeout');
      expect(cycle.reason).toMatch(
        new RegExp(`^the model API at ${host} did not answer: \\d+ retries, the last error server_error \\(HTTP 503\\)`),
      );
      expect(model.posts()).toBeGreaterThan(1);
    } finally {
      await model.close();
    }
  }, 90_000);
});
