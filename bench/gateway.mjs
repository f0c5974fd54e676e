#!/usr/bin/env node
// What abcd's model gateway adds to a model request: the same streamed Messages API answer
// (server-sent events, as the real API sends them) asked for directly of a model server on
// 127.0.0.1 and through the gateway on its unix socket, interleaved in one run. Prints the
// medians of the whole answer and of the time to its first byte, and what the gateway adds
// (target: under 5 ms a request at the median, nothing more to the first byte).
//
//   npm run build && node bench/gateway.mjs [reps=200]
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILD, median } from './lib.mjs';

const REPS = Number(process.argv[2] ?? 200);
// What the gateway may add to one request at the median.
const TARGET_MS = 5;
const { startModelGateway } = await import(join(BUILD, 'dist/machine/gateway/model-gateway.js'));

// A streamed answer of about the size of a short tool call: 40 text deltas, then the usage.
const EVENTS = [
  ['message_start', { type: 'message_start', message: { id: 'm', model: 'bench', usage: { input_tokens: 1200, output_tokens: 1 } } }],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
  ...Array.from({ length: 40 }, (_, i) => [
    'content_block_delta',
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `word ${i} ` } },
  ]),
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 80 } }],
  ['message_stop', { type: 'message_stop' }],
];
const model = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const [type, data] of EVENTS) res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
    res.end();
  });
});
await new Promise((r) => model.listen(0, '127.0.0.1', () => r(undefined)));
const port = /** @type {import('node:net').AddressInfo} */ (model.address()).port;
const dir = mkdtempSync(join(tmpdir(), 'abcd-bench-gw-'));
let usages = 0;
const gateway = await startModelGateway({
  dir,
  dialect: 'messages',
  upstream: new URL(`http://127.0.0.1:${port}`),
  credential: { headers: { 'x-api-key': 'bench-key' } },
  onEvent: (/** @type {{ usage?: unknown }} */ e) => void (e.usage && usages++),
});
const body = JSON.stringify({ model: 'bench', stream: true, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });

/** @param {object} where @returns {Promise<{ total: number, first: number }>} */
function ask(where) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let first = 0;
    const req = request(
      { ...where, method: 'POST', path: '/v1/messages', headers: { 'content-type': 'application/json', 'x-api-key': 'placeholder' } },
      (res) => {
        res.on('data', () => void (first ||= performance.now() - t0));
        res.on('end', () => resolve({ total: performance.now() - t0, first }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const direct = { host: '127.0.0.1', port, agent: false };
const through = { socketPath: gateway.socketPath, agent: false };
/** @type {Record<'direct' | 'gateway', { total: number[], first: number[] }>} */
const t = { direct: { total: [], first: [] }, gateway: { total: [], first: [] } };
/** @type {(name: 'direct' | 'gateway') => Promise<void>} */
const once = async (name) => {
  const r = await ask(name === 'direct' ? direct : through);
  t[name].total.push(r.total);
  t[name].first.push(r.first);
};
for (let i = 0; i < 20; i++) await Promise.all([ask(direct), ask(through)]); // warm both paths
for (let i = 0; i < REPS; i++) {
  if (i % 2) {
    await once('direct');
    await once('gateway');
  } else {
    await once('gateway');
    await once('direct');
  }
}
await gateway.close();
model.close();
rmSync(dir, { recursive: true, force: true });
const f = (/** @type {number} */ x) => `${x.toFixed(2)} ms`;
const added = median(t.gateway.total) - median(t.direct.total);
const addedFirst = median(t.gateway.first) - median(t.direct.first);
console.log(
  `## Model gateway: one streamed answer, direct and through the gateway (${REPS} each, interleaved, load ${loadavg()[0]?.toFixed(2)})`,
);
console.log('');
console.log('| path | whole answer | first byte |');
console.log('| --- | --- | --- |');
console.log(`| direct | ${f(median(t.direct.total))} | ${f(median(t.direct.first))} |`);
console.log(`| through the gateway | ${f(median(t.gateway.total))} | ${f(median(t.gateway.first))} |`);
console.log('');
console.log(
  `added: ${f(added)} to the whole answer, ${f(addedFirst)} to the first byte (target: under ${TARGET_MS} ms): ${added < TARGET_MS ? 'met' : 'missed'}; usage read from ${usages} answers`,
);
