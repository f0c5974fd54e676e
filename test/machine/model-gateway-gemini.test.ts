// The gateway's Gemini dialect: it sends on only the Gemini API's model endpoints with the real
// key as `x-goog-api-key` (the agent's header and `?key=` dropped), refuses anything else 403 in
// the Gemini API's error shape and reports it, reads usage from `usageMetadata` however the
// stream is cut into chunks (thinking counted as output), and answers a used-up pool with a 400
// Gemini CLI does not retry.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../src/machine/gateway/dialects.js';
import { UsageTap } from '../../src/machine/gateway/usage-tap.js';
import { gatewayLine } from '../../src/lanes/runtimes/gateway-link.js';
import { GeminiModelServer } from '../harness/model-server-gemini.js';
import { cleanupTemp } from '../harness/git-env.js';
import { ask, closeGateways, gateway, PLACEHOLDER, REAL_KEY } from '../harness/gateway.js';

afterEach(closeGateways);
afterAll(cleanupTemp);

const chunk = (text: string, usage: object) =>
  `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text }] } }], usageMetadata: usage, modelVersion: 'gemini-x' })}\r\n\r\n`;
// A streamed answer as the Gemini API sends it: every chunk with the usage so far, the last the whole answer's.
const STREAM = [
  chunk('déjà vu — ', { promptTokenCount: 5000, candidatesTokenCount: 3 }),
  chunk('✓ 日本', {
    promptTokenCount: 5000,
    cachedContentTokenCount: 4000,
    candidatesTokenCount: 40,
    thoughtsTokenCount: 200,
    totalTokenCount: 5240,
  }),
].join('');
const EXPECTED = { inputTokens: 1000, cacheReadTokens: 4000, cacheWriteTokens: 0, outputTokens: 240, model: 'gemini-x', turns: 1 };

function tapped(chunks: Buffer[], streaming = true) {
  const tap = new UsageTap(DIALECTS.gemini, streaming);
  for (const c of chunks) tap.push(c);
  return tap.usage();
}

describe('the Gemini dialect reads usage', () => {
  it('from the last chunk’s usageMetadata, at every point the stream can be split into two chunks', () => {
    const bytes = Buffer.from(STREAM);
    for (let at = 0; at <= bytes.length; at++) {
      expect(tapped([bytes.subarray(0, at), bytes.subarray(at)]), `split at ${at}`).toMatchObject(EXPECTED);
    }
  });

  it('from a stream fed one byte at a time, and from a whole JSON answer', () => {
    const bytes = Buffer.from(STREAM);
    expect(tapped([...bytes].map((b) => Buffer.from([b])))).toMatchObject(EXPECTED);
    const whole = JSON.stringify({ usageMetadata: { promptTokenCount: 70, candidatesTokenCount: 5, thoughtsTokenCount: 2 } });
    expect(tapped([Buffer.from(whole)], false)).toMatchObject({ inputTokens: 70, cacheReadTokens: 0, outputTokens: 7, turns: 1 });
  });

  it('not at all from an error answer, and hostile numbers are made safe', () => {
    expect(tapped([Buffer.from(JSON.stringify({ error: { code: 400, message: 'no' } }))], false)).toBeUndefined();
    const hostile = chunk('x', {
      promptTokenCount: 10,
      cachedContentTokenCount: 1e30,
      candidatesTokenCount: -5,
      thoughtsTokenCount: 'many',
    });
    expect(tapped([Buffer.from(hostile)])).toMatchObject({ inputTokens: 0, cacheReadTokens: 10, outputTokens: 0 });
  });
});

describe('the model gateway, Gemini dialect', () => {
  it('sends a streamed request with the real key in place of the agent’s header and ?key=, and reads its usage', async () => {
    const server = await GeminiModelServer.start([{ say: 'hi', usage: { input: 900, cached: 300, output: 12 } }]);
    try {
      const { g, events } = await gateway({ dialect: 'gemini', upstream: new URL(server.baseUrl) });
      const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hello' }] }] });
      const r = await ask(g.socketPath, {
        method: 'POST',
        // The stub answers only `?alt=sse` exactly: a `key` left in the query would be refused there.
        path: `/v1beta/models/gemini-stub:streamGenerateContent?alt=sse&key=${PLACEHOLDER}`,
        headers: { 'content-type': 'application/json', 'x-goog-api-key': PLACEHOLDER },
        body,
      });
      expect(r.status, r.body).toBe(200);
      expect(r.body).toContain('"usageMetadata"');
      server.verify({ allStepsUsed: true });
      expect(server.requests.map((q) => q.key)).toEqual([REAL_KEY]);
      expect(events).toEqual([
        {
          method: 'POST',
          path: '/v1beta/models/gemini-stub:streamGenerateContent',
          outcome: 'forwarded',
          status: 200,
          usage: expect.objectContaining({ inputTokens: 600, cacheReadTokens: 300, outputTokens: 12, model: 'gemini-stub', turns: 1 }),
        },
      ]);
      expect(gatewayLine(events[0]!)).not.toContain(PLACEHOLDER);
    } finally {
      await server.stop();
    }
  });

  it('sends a whole-answer request (the routing classifier’s) and reads the usage from its JSON body', async () => {
    const server = await GeminiModelServer.start([{ say: '{"model_choice": "flash"}', usage: { input: 400, output: 9 } }]);
    try {
      const { g, events } = await gateway({ dialect: 'gemini', upstream: new URL(server.baseUrl) });
      const r = await ask(g.socketPath, {
        method: 'POST',
        path: '/v1beta/models/gemini-3.5-flash-lite:generateContent',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': PLACEHOLDER },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'route this' }] }] }),
      });
      expect(r.status, r.body).toBe(200);
      expect(server.requests.map((q) => [q.model, q.key])).toEqual([['gemini-3.5-flash-lite', REAL_KEY]]);
      expect(events.map((e) => [e.outcome, e.usage?.inputTokens, e.usage?.outputTokens])).toEqual([['forwarded', 400, 9]]);
    } finally {
      await server.stop();
    }
  });

  it('refuses every path that is not a Gemini model endpoint with 403 in the API’s shape, reports it, and the server never sees it', async () => {
    const server = await GeminiModelServer.start([]);
    try {
      const { g, events } = await gateway({ dialect: 'gemini', upstream: new URL(server.baseUrl) });
      const refused = [
        ['GET', '/v1beta/models'],
        ['POST', '/v1beta/models/m:embedContent'],
        ['POST', '/v1beta/models/m:batchGenerateContent'],
        ['POST', '/v1beta/files'],
        ['POST', '/v1beta/cachedContents'],
        ['GET', '/v1beta/models/m:streamGenerateContent'],
        ['POST', '/v1/models/m:generateContent'],
        ['POST', '/v1beta/models/../files:generateContent'],
        ['POST', '/v1beta/tunedModels/m:generateContent'],
      ] as const;
      for (const [method, path] of refused) {
        const r = await ask(g.socketPath, { method, path: `${path}?key=${PLACEHOLDER}`, headers: { 'x-goog-api-key': PLACEHOLDER } });
        expect(r.status, `${method} ${path}`).toBe(403);
        expect(JSON.parse(r.body)).toMatchObject({
          error: {
            code: 403,
            status: 'PERMISSION_DENIED',
            message: expect.stringContaining('Gemini API'),
            details: [{ reason: 'endpoint_refused' }],
          },
        });
      }
      expect(server.requests).toEqual([]);
      expect(server.problems).toEqual([]);
      expect(events.map((e) => e.outcome)).toEqual(refused.map(() => 'refused'));
      expect(events.every((e) => !e.path.includes(PLACEHOLDER))).toBe(true);
    } finally {
      await server.stop();
    }
  });

  it('answers a used-up pool with a 400 in the Gemini API’s shape, before the server is asked', async () => {
    const server = await GeminiModelServer.start([{ say: 'one' }]);
    try {
      let left = 1;
      const { g, events } = await gateway({
        dialect: 'gemini',
        upstream: new URL(server.baseUrl),
        admit: () => (left-- > 0 ? { ok: true } : { ok: false, why: 'the budget pool is used up' }),
      });
      const ask1 = () =>
        ask(g.socketPath, {
          method: 'POST',
          path: '/v1beta/models/gemini-stub:streamGenerateContent?alt=sse',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ contents: [] }),
        });
      expect((await ask1()).status).toBe(200);
      const r = await ask1();
      expect(r.status).toBe(400);
      expect(JSON.parse(r.body)).toMatchObject({
        error: {
          code: 400,
          status: 'INVALID_ARGUMENT',
          message: expect.stringContaining('budget pool is used up'),
          details: [{ reason: 'budget_exhausted' }],
        },
      });
      expect(server.requests).toHaveLength(1);
      expect(events.map((e) => e.outcome)).toEqual(['forwarded', 'budget']);
    } finally {
      await server.stop();
    }
  });
});
