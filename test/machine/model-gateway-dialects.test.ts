// One gateway, a dialect per model API: the Responses dialect sends on only its own endpoints
// (anything else is answered 403 in the API's error shape and reported), reads usage from
// `response.completed` however the stream is cut into chunks, and answers a used-up pool in its
// own shape. Claude Code's other credentials (a bearer token, an OAuth token) are carried as
// Claude Code itself would send them, with the real value put in by the gateway.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../src/machine/gateway/dialects.js';
import { UsageTap } from '../../src/machine/gateway/usage-tap.js';
import { gatewayLine } from '../../src/lanes/runtimes/gateway-link.js';
import { RUNTIMES } from '../../src/lanes/runtimes/index.js';
import { claudeCredential, OAUTH_BETA } from '../../src/lanes/runtimes/claude/claude-credential.js';
import { checkModelKeyPassed } from '../../src/lanes/runtimes/installs.js';
import { UsageError } from '../../src/core/refusals.js';
import { AnthropicStub, answer } from '../harness/model-server-anthropic.js';
import { OpenAiModelServer } from '../harness/model-server-openai.js';
import { cleanupTemp } from '../harness/git-env.js';
import { ask, closeGateways, gateway, PLACEHOLDER, REAL_KEY } from '../harness/gateway.js';

afterEach(closeGateways);
afterAll(cleanupTemp);

const sse = (type: string, data: object) => `event: ${type}\r\ndata: ${JSON.stringify({ type, ...data })}\r\n\r\n`;
// An answer as a Responses API server streams it: usage only in its last event, text with
// characters of more than one byte before it.
const STREAM = [
  sse('response.created', { response: { id: 'r1', status: 'in_progress', usage: null } }),
  sse('response.in_progress', { response: { id: 'r1', status: 'in_progress', usage: { input_tokens: 999, output_tokens: 999 } } }),
  sse('response.output_text.delta', { delta: 'déjà vu — ✓ 日本' }),
  sse('response.completed', {
    response: {
      id: 'r1',
      model: 'gpt-stub',
      status: 'completed',
      usage: { input_tokens: 3000, input_tokens_details: { cached_tokens: 1200 }, output_tokens: 77, total_tokens: 3077 },
    },
  }),
].join('');
const EXPECTED = { inputTokens: 1800, cacheReadTokens: 1200, cacheWriteTokens: 0, outputTokens: 77, model: 'gpt-stub', turns: 1 };

function tapped(chunks: Buffer[]) {
  const tap = new UsageTap(DIALECTS.responses, true);
  for (const c of chunks) tap.push(c);
  return tap.usage();
}

describe('the Responses dialect reads usage', () => {
  it('from response.completed alone, at every point the stream can be split into two chunks', () => {
    const bytes = Buffer.from(STREAM);
    for (let at = 0; at <= bytes.length; at++) {
      expect(tapped([bytes.subarray(0, at), bytes.subarray(at)]), `split at byte ${at}`).toMatchObject(EXPECTED);
    }
  });

  it('from a stream fed one byte at a time', () => {
    const bytes = Buffer.from(STREAM);
    expect(tapped([...bytes].map((b) => Buffer.from([b])))).toMatchObject(EXPECTED);
  });

  it('not at all from an answer cut off before response.completed, or one that failed', () => {
    const cut = STREAM.slice(0, STREAM.indexOf('event: response.completed'));
    expect(tapped([Buffer.from(cut)])).toBeUndefined();
    const failed = cut + sse('response.failed', { response: { id: 'r1', status: 'failed', error: { code: 'server_error' } } });
    expect(tapped([Buffer.from(failed)])).toBeUndefined();
  });

  it('from a whole JSON answer’s usage', () => {
    const tap = new UsageTap(DIALECTS.responses, false);
    tap.push(Buffer.from(JSON.stringify({ id: 'r2', model: 'm', usage: { input_tokens: 10, output_tokens: 4 } })));
    expect(tap.usage()).toMatchObject({ inputTokens: 10, outputTokens: 4, cacheReadTokens: 0, turns: 1 });
  });
});

describe('the model gateway, Responses dialect', () => {
  it('refuses every path that is not a Responses endpoint with 403 in the API’s shape, reports it, and the server never sees it', async () => {
    const server = await OpenAiModelServer.start([]);
    try {
      const { g, events } = await gateway({ dialect: 'responses', upstream: new URL(server.baseUrl) });
      const refused = [
        ['POST', '/v1/chat/completions'],
        ['POST', '/v1/embeddings'],
        ['GET', '/v1/files'],
        ['POST', '/v1/responses/compact'],
        ['GET', '/v1/responses'],
        ['DELETE', '/v1/responses'],
        ['POST', '/v2/responses'],
      ] as const;
      for (const [method, path] of refused) {
        const r = await ask(g.socketPath, { method, path, headers: { authorization: `Bearer ${PLACEHOLDER}`, upgrade: 'websocket' } });
        expect(r.status, `${method} ${path}`).toBe(403);
        expect(JSON.parse(r.body)).toMatchObject({ error: { type: 'permission_error', code: 'endpoint_refused' } });
      }
      expect(server.requests).toEqual([]);
      expect(server.problems).toEqual([]);
      expect(events.map((e) => [e.outcome, e.method, e.path, e.status])).toEqual(refused.map(([m, p]) => ['refused', m, p, 403]));
      // The run's log line for one: what was asked and why it was refused, nothing of the request's headers.
      const line = gatewayLine(events[0]!);
      expect(line).toBe('[abcd] model: refused POST /v1/chat/completions 403: not an endpoint of the Responses API\n');
    } finally {
      await server.stop();
    }
  });

  it('answers a used-up pool in the Responses API’s error shape, before the server is asked', async () => {
    const server = await OpenAiModelServer.start([{ say: 'one' }]);
    try {
      let left = 1;
      const { g, events } = await gateway({
        dialect: 'responses',
        upstream: new URL(server.baseUrl),
        admit: () => (left-- > 0 ? { ok: true } : { ok: false, why: 'the budget pool is used up' }),
      });
      const body = JSON.stringify({ model: 'm', stream: true, input: [{ type: 'message', role: 'user', content: 'hi' }] });
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${PLACEHOLDER}` };
      expect((await ask(g.socketPath, { method: 'POST', path: '/v1/responses', headers, body })).status).toBe(200);
      const r = await ask(g.socketPath, { method: 'POST', path: '/v1/responses', headers, body });
      expect(r.status).toBe(400);
      expect(JSON.parse(r.body)).toEqual({
        error: { type: 'invalid_request_error', code: 'budget_exhausted', message: expect.stringContaining('budget pool is used up') },
      });
      expect(server.requests).toHaveLength(1);
      expect(events.map((e) => e.outcome)).toEqual(['forwarded', 'budget']);
    } finally {
      await server.stop();
    }
  });
});

describe("Claude Code's other credentials through the gateway", () => {
  const post = (headers: Record<string, string>) => ({
    method: 'POST',
    path: '/v1/messages?beta=true',
    headers: { 'content-type': 'application/json', 'x-claude-code-session-id': 'c1', ...headers },
    body: JSON.stringify({ model: 'claude-test', stream: true, max_tokens: 10, messages: [{ role: 'user', content: 'creds' }] }),
  });

  it('chooses as Claude Code does, and gives the agent a placeholder in each variable the person set', () => {
    expect(claudeCredential({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_AUTH_TOKEN: 't', CLAUDE_CODE_OAUTH_TOKEN: 'o' })).toEqual({
      credential: { headers: { 'x-api-key': 'k', authorization: 'Bearer t' } },
      agentEnv: { ANTHROPIC_API_KEY: 'abcd-model-gateway-placeholder', ANTHROPIC_AUTH_TOKEN: 'abcd-model-gateway-placeholder' },
    });
    expect(claudeCredential({ ANTHROPIC_AUTH_TOKEN: 't', CLAUDE_CODE_OAUTH_TOKEN: 'o' })?.credential).toEqual({
      headers: { authorization: 'Bearer t' },
    });
    expect(claudeCredential({ CLAUDE_CODE_OAUTH_TOKEN: 'o' })).toEqual({
      credential: { headers: { authorization: 'Bearer o' }, flags: { 'anthropic-beta': [OAUTH_BETA] } },
      agentEnv: { CLAUDE_CODE_OAUTH_TOKEN: 'abcd-model-gateway-placeholder' },
    });
    expect(claudeCredential({ ANTHROPIC_API_KEY: '', OTHER: 'x' })).toBeUndefined();
  });

  it('naming any of them for a sandboxed agent is refused, with the variable and the config key', () => {
    for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN']) {
      let err: unknown;
      try {
        checkModelKeyPassed(RUNTIMES.claude.install, { [name]: 'x' }, ['HTTPS_PROXY', name], { gateway: true });
      } catch (e) {
        err = e;
      }
      expect(err, name).toBeInstanceOf(UsageError);
      expect((err as UsageError).data).toEqual({ name, key: 'lanes.claude.env' });
    }
    // Set where abcd runs and named nowhere: the gateway carries it, nothing to refuse.
    expect(() => checkModelKeyPassed(RUNTIMES.claude.install, { CLAUDE_CODE_OAUTH_TOKEN: 'x' }, [], { gateway: true })).not.toThrow();
  });

  it('an auth token goes as the bearer, and the agent’s placeholder in either header is dropped', async () => {
    const stub = await AnthropicStub.start();
    try {
      stub.on('creds', [answer('ok', { input: 5, output: 1 })]);
      const { credential } = claudeCredential({ ANTHROPIC_AUTH_TOKEN: REAL_KEY })!;
      const { g } = await gateway({ dialect: 'messages', upstream: new URL(stub.url), credential });
      const r = await ask(g.socketPath, post({ authorization: `Bearer ${PLACEHOLDER}`, 'x-api-key': PLACEHOLDER }));
      expect(r.status).toBe(200);
      expect(stub.requests.map((q) => q.auth)).toEqual([{ bearer: REAL_KEY, betas: [] }]);
    } finally {
      await stub.close();
    }
  });

  it('an OAuth token goes as the bearer with the oauth beta flag, added once whether or not the agent sent it', async () => {
    const stub = await AnthropicStub.start();
    try {
      stub.on('creds', [answer('ok', { input: 5, output: 1 }), answer('ok again', { input: 6, output: 1 })]);
      const { credential } = claudeCredential({ CLAUDE_CODE_OAUTH_TOKEN: REAL_KEY })!;
      const { g } = await gateway({ dialect: 'messages', upstream: new URL(stub.url), credential });
      // As Claude Code sends it with an OAuth token (its placeholder), and as it sends it with an API key.
      const asOauth = { authorization: `Bearer ${PLACEHOLDER}`, 'anthropic-beta': `claude-code-20250219,${OAUTH_BETA},effort-2025-11-24` };
      expect((await ask(g.socketPath, post(asOauth))).status).toBe(200);
      expect((await ask(g.socketPath, post({ 'x-api-key': PLACEHOLDER, 'anthropic-beta': 'claude-code-20250219' }))).status).toBe(200);
      expect(stub.requests.map((q) => q.auth)).toEqual([
        { bearer: REAL_KEY, betas: ['claude-code-20250219', OAUTH_BETA, 'effort-2025-11-24'] },
        { bearer: REAL_KEY, betas: ['claude-code-20250219', OAUTH_BETA] },
      ]);
    } finally {
      await stub.close();
    }
  });
});
