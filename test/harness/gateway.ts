// A model gateway started on its own for a test, and requests to it over its unix socket as the
// sandbox's relay would carry them.
import { mkdtemp } from 'node:fs/promises';
import { request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startModelGateway,
  type GatewayEvent,
  type ModelGateway,
  type ModelGatewayOptions,
} from '../../src/machine/gateway/model-gateway.js';

export const REAL_KEY = 'canary-real-model-key-7f3a';
export const PLACEHOLDER = 'abcd-gateway-placeholder';

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One HTTP request over the gateway's unix socket, as the relay would carry it. */
export function ask(
  socketPath: string,
  o: { method: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method: o.method, path: o.path, headers: { host: '127.0.0.2', ...o.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

const started: ModelGateway[] = [];

/** Closes every gateway `gateway()` started (an afterEach). */
export async function closeGateways(): Promise<void> {
  for (const g of started.splice(0)) await g.close();
}

/** A gateway for `o`, with the real key as its dialect's own header unless a credential is given. */
export async function gateway(
  o: Omit<ModelGatewayOptions, 'dir' | 'onEvent' | 'credential'> & Partial<Pick<ModelGatewayOptions, 'credential'>>,
): Promise<{ g: ModelGateway; events: GatewayEvent[] }> {
  const events: GatewayEvent[] = [];
  const dir = await mkdtemp(join(tmpdir(), 'abcd-gw-'));
  const own = {
    messages: { 'x-api-key': REAL_KEY },
    responses: { authorization: `Bearer ${REAL_KEY}` },
    gemini: { 'x-goog-api-key': REAL_KEY },
  };
  const credential = o.credential ?? { headers: own[o.dialect] };
  const g = await startModelGateway({ ...o, dir, credential, onEvent: (e) => events.push(e) });
  started.push(g);
  return { g, events };
}
