// The model gateway holds the key and the agent does not: every request to the API's own
// endpoints reaches the model server with the real key in place of the placeholder the agent
// sent, its answer streams back as the server wrote it, and its usage is read from that answer.
// Any other path, a used-up budget and a dead API are answered in the API's own error shape.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AnthropicStub, answer, toolStep, tool } from '../harness/model-server-anthropic.js';
import { OpenAiModelServer } from '../harness/model-server-openai.js';
import { cleanupTemp } from '../harness/git-env.js';
import { ask, closeGateways, gateway, PLACEHOLDER, REAL_KEY } from '../harness/gateway.js';

afterEach(closeGateways);
afterAll(cleanupTemp);

const messages = (text: string) =>
  JSON.stringify({ model: 'claude-test', stream: true, max_tokens: 100, messages: [{ role: 'user', content: text }] });

describe('the model gateway, Messages API', () => {
  it('sends the real key in place of the agent’s, streams the answer unchanged and reads its usage', async () => {
    const stub = await AnthropicStub.start();
    try {
      stub.on('write a file', [toolStep(tool.write('/tmp/x', 'x'), { input: 1200, output: 80, cacheRead: 300, cacheWrite: 40 })]);
      const { g, events } = await gateway({ dialect: 'messages', upstream: new URL(stub.url) });
      expect(g.agentBaseUrl('127.0.0.2', 8080)).toBe('http://127.0.0.2:8080');
      const head = await ask(g.socketPath, { method: 'HEAD', path: '/' });
      expect(head.status).toBe(200);
      const r = await ask(g.socketPath, {
        method: 'POST',
        path: '/v1/messages?beta=true',
        headers: { 'x-api-key': PLACEHOLDER, 'content-type': 'application/json', 'x-claude-code-session-id': 'conv-1' },
        body: messages('please write a file'),
      });
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toContain('text/event-stream');
      expect(r.body).toContain('event: message_start');
      expect(r.body).toContain('"name":"Write"');
      expect(r.body).toContain('event: message_stop');
      // The server saw the real key, never the placeholder; the query came through.
      const seen = stub.requests.filter((q) => q.method === 'POST');
      expect(seen.map((q) => q.key)).toEqual([REAL_KEY]);
      expect(seen[0]!.path).toBe('/v1/messages?beta=true');
      const reported = stub.usageOf('conv-1');
      const forwarded = events.filter((e) => e.outcome === 'forwarded' && e.method === 'POST');
      expect(forwarded).toHaveLength(1);
      expect(forwarded[0]!.usage).toMatchObject({
        inputTokens: reported.input,
        outputTokens: reported.output,
        cacheReadTokens: reported.cacheRead,
        cacheWriteTokens: reported.cacheWrite,
        turns: 1,
      });
      expect(JSON.stringify(events)).not.toContain(REAL_KEY);
      stub.verify();
    } finally {
      await stub.close();
    }
  });

  it('refuses a path that is not one of the API’s endpoints, and the model server never sees it', async () => {
    const stub = await AnthropicStub.start();
    try {
      const { g, events } = await gateway({ dialect: 'messages', upstream: new URL(stub.url) });
      for (const [method, path] of [
        ['GET', '/v1/files'],
        ['POST', '/v1/messages/../../admin'],
        ['GET', '/v1/messages'],
        ['POST', '/v1/messages/batches'],
      ] as const) {
        const r = await ask(g.socketPath, { method, path, headers: { 'x-api-key': PLACEHOLDER } });
        expect(r.status, `${method} ${path}`).toBe(403);
        expect(JSON.parse(r.body)).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
      }
      expect(stub.requests).toEqual([]);
      expect(events.map((e) => e.outcome)).toEqual(['refused', 'refused', 'refused', 'refused']);
    } finally {
      await stub.close();
    }
  });

  it('answers a used-up budget with an error the CLI does not retry, before the model server is asked', async () => {
    const stub = await AnthropicStub.start();
    try {
      stub.on('first', [answer('done', { input: 10, output: 5 })]);
      let left = 1;
      const { g, events } = await gateway({
        dialect: 'messages',
        upstream: new URL(stub.url),
        admit: () => (left-- > 0 ? { ok: true } : { ok: false, why: 'the budget pool is used up' }),
      });
      const headers = { 'x-api-key': PLACEHOLDER, 'content-type': 'application/json', 'x-claude-code-session-id': 'c' };
      expect((await ask(g.socketPath, { method: 'POST', path: '/v1/messages', headers, body: messages('first') })).status).toBe(200);
      const r = await ask(g.socketPath, { method: 'POST', path: '/v1/messages', headers, body: messages('second') });
      expect(r.status).toBe(400);
      expect(JSON.parse(r.body)).toMatchObject({
        type: 'error',
        error: { type: 'invalid_request_error', message: expect.stringContaining('budget') },
      });
      expect(stub.requests.filter((q) => q.method === 'POST')).toHaveLength(1);
      expect(events.map((e) => e.outcome)).toEqual(['forwarded', 'budget']);
    } finally {
      await stub.close();
    }
  });

  it('says which host it could not reach when the API does not answer', async () => {
    const stub = await AnthropicStub.start();
    const dead = new URL(stub.url);
    await stub.close();
    const { g, events } = await gateway({ dialect: 'messages', upstream: dead });
    const r = await ask(g.socketPath, {
      method: 'POST',
      path: '/v1/messages',
      headers: { 'content-type': 'application/json' },
      body: messages('x'),
    });
    expect(r.status).toBe(502);
    expect(JSON.parse(r.body).error.message).toContain(dead.host);
    expect(events).toMatchObject([{ outcome: 'failed', why: expect.stringContaining(dead.host) }]);
  });
});

describe('the model gateway, Responses API', () => {
  it('keeps the provider’s /v1 prefix, sends the real key as the bearer and reads response.completed usage', async () => {
    const server = await OpenAiModelServer.start([{ say: 'hello', usage: { input: 2000, cached: 500, output: 42 } }]);
    try {
      const { g, events } = await gateway({ dialect: 'responses', upstream: new URL(server.baseUrl) });
      expect(g.agentBaseUrl('127.0.0.2', 9000)).toBe('http://127.0.0.2:9000/v1');
      const body = JSON.stringify({ model: 'gpt-test', stream: true, input: [{ type: 'message', role: 'user', content: 'hi' }] });
      const r = await ask(g.socketPath, {
        method: 'POST',
        path: '/v1/responses',
        headers: { authorization: `Bearer ${PLACEHOLDER}`, 'content-type': 'application/json' },
        body,
      });
      expect(r.status).toBe(200);
      expect(r.body).toContain('event: response.completed');
      expect(server.requests.map((q) => q.key)).toEqual([REAL_KEY]);
      expect(events.filter((e) => e.outcome === 'forwarded').map((e) => e.usage)).toMatchObject([
        { inputTokens: 1500, cacheReadTokens: 500, outputTokens: 42, turns: 1 },
      ]);
      // Outside its prefix, nothing is the API's.
      expect((await ask(g.socketPath, { method: 'POST', path: '/responses', body })).status).toBe(403);
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.stop();
    }
  });
});
