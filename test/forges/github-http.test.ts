// One GitHub HTTP client, one mapping (ADR 0029): the same answer ends in the same refusal
// whether a token call (the credential code) or a forge call (pull requests) received it.
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { resolveLogin } from '../../src/forges/github/credentials/token-user.js';
import { mintInstallationToken } from '../../src/forges/github/credentials/token-installation.js';
import { systemClock } from '../../src/core/deps.js';
import { GitHubClient } from '../../src/forges/github/client.js';
import { isRefusal, type Refusal } from '../../src/core/refusals.js';
import { useGitHubStub } from '../harness/github-client-stub.js';
import { GitHubStub, type StubReply } from '../harness/github-stub.js';

const TOKEN = 'ghu_httpTestToken0123456789abcdef';
const PULLS = '/repos/octo/widgets/pulls';
// Short enough for a quick test, long enough for a loaded machine to answer a local server.
const TIMEOUT_MS = 2000;

const gh = useGitHubStub(TOKEN);

async function refusalOf(p: Promise<unknown>): Promise<Refusal> {
  const e = await p.then(
    () => expect.fail('expected a refusal'),
    (x: unknown) => x,
  );
  expect(isRefusal(e), String(e)).toBe(true);
  expect(JSON.stringify({ m: (e as Refusal).message, d: (e as Refusal).data })).not.toContain(TOKEN);
  return e as Refusal;
}

/** What must agree: the class, code, exit and the data that says why. */
function shape(r: Refusal) {
  const d = r.data as Record<string, unknown>;
  return { name: r.name, code: r.code, exit: r.exit, reason: d.reason, status: d.status, outcome: d.outcome, limit: d.limit };
}

/** The same answer to a token call (GET /user) and to a forge call (GET .../pulls). */
async function bothGet(reply: StubReply): Promise<{ token: Refusal; forge: Refusal }> {
  gh.stub.on({ method: 'GET', path: '/user', reply });
  gh.stub.on({ method: 'GET', path: PULLS, reply });
  const token = await refusalOf(resolveLogin({ urls: { api: gh.stub.url, web: gh.stub.url }, httpTimeoutMs: TIMEOUT_MS }, TOKEN));
  const client = new GitHubClient({
    restUrl: gh.stub.url,
    graphqlUrl: gh.stub.graphqlUrl,
    token: async () => TOKEN,
    clock: systemClock,
    callTimeoutMs: TIMEOUT_MS,
  });
  const forge = await refusalOf(client.rest({ method: 'GET', path: PULLS, what: 'list pull requests' }, z.unknown()));
  return { token, forge };
}

const cases: Array<[string, StubReply, { code: string; exit: number; reason: string }]> = [
  [
    '401 bad credentials',
    { status: 401, body: { message: 'Bad credentials' } },
    { code: 'unsafe-environment', exit: 7, reason: 'token-rejected' },
  ],
  [
    '403 the App is not installed (resource not accessible)',
    { status: 403, body: { message: 'Resource not accessible by integration' } },
    { code: 'unsafe-environment', exit: 7, reason: 'forbidden' },
  ],
  [
    '403 secondary rate limit with retry-after',
    {
      status: 403,
      headers: { 'retry-after': '30' },
      body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes.' },
    },
    { code: 'remote-unavailable', exit: 8, reason: 'rate-limited' },
  ],
  [
    '403 secondary rate limit named only in the message',
    { status: 403, body: { message: 'You have exceeded a secondary rate limit.' } },
    { code: 'remote-unavailable', exit: 8, reason: 'rate-limited' },
  ],
  [
    '429 with retry-after',
    { status: 429, headers: { 'retry-after': '5' }, body: { message: 'Too many requests' } },
    { code: 'remote-unavailable', exit: 8, reason: 'rate-limited' },
  ],
  [
    '403 primary rate limit',
    {
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1900000000' },
      body: { message: 'API rate limit exceeded' },
    },
    { code: 'remote-unavailable', exit: 8, reason: 'rate-limited' },
  ],
  ['404 not found', { status: 404, body: { message: 'Not Found' } }, { code: 'forge-rejected', exit: 3, reason: 'not-found' }],
  ['409 conflict', { status: 409, body: { message: 'Conflict' } }, { code: 'forge-rejected', exit: 3, reason: 'conflict' }],
  [
    '422 validation failed',
    { status: 422, body: { message: 'Validation Failed', errors: [{ code: 'invalid' }] } },
    { code: 'forge-rejected', exit: 3, reason: 'unprocessable' },
  ],
  ['500 server error', { status: 500, body: { message: 'Server Error' } }, { code: 'remote-unavailable', exit: 8, reason: 'server-error' }],
  [
    '502 with an HTML page',
    { status: 502, body: '<html>Bad gateway</html>' },
    { code: 'remote-unavailable', exit: 8, reason: 'server-error' },
  ],
  ['200 with a garbage body', { status: 200, body: '<html>surprise</html>' }, { code: 'remote-unavailable', exit: 8, reason: 'garbage' }],
  [
    'no answer within the call timeout',
    { status: 200, body: { login: 'late' }, delayMs: TIMEOUT_MS + 20_000 },
    { code: 'remote-unavailable', exit: 8, reason: 'timeout' },
  ],
];

describe('one mapping for token calls and forge calls', () => {
  for (const [what, reply, want] of cases) {
    it(`${what}: ${want.code} (exit ${want.exit}, ${want.reason}) from both`, async () => {
      const { token, forge } = await bothGet(reply);
      expect(shape(token)).toEqual(shape(forge));
      expect(shape(token)).toMatchObject(want);
    });
  }

  it('a rate limit says when to try again, from the retry-after GitHub sent, in both', async () => {
    const before = Date.now();
    const { token, forge } = await bothGet({ status: 429, headers: { 'retry-after': '30' }, body: { message: 'slow down' } });
    for (const r of [token, forge]) {
      const resetAt = Date.parse(String(r.data.resetAt));
      expect(resetAt).toBeGreaterThanOrEqual(before + 29_000);
      expect(resetAt).toBeLessThanOrEqual(Date.now() + 31_000);
    }
  });

  it('a refused connection is the same unreachable refusal from both', async () => {
    const closed = await GitHubStub.start();
    const url = closed.url;
    await closed.stop();
    const token = await refusalOf(resolveLogin({ urls: { api: url, web: url }, httpTimeoutMs: TIMEOUT_MS }, TOKEN));
    const client = new GitHubClient({ restUrl: url, graphqlUrl: `${url}/graphql`, token: async () => TOKEN, clock: systemClock });
    const forge = await refusalOf(client.rest({ method: 'GET', path: PULLS, what: 'list' }, z.unknown()));
    expect(shape(token)).toEqual(shape(forge));
    expect(shape(token)).toMatchObject({ code: 'remote-unavailable', exit: 8, reason: 'unreachable', outcome: 'unchanged' });
  });

  it('the App not installed (404 on the installation) is the forge not-found refusal, naming the installation', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    gh.stub.on({ method: 'GET', path: '/repos/octo/widgets/installation', reply: { status: 404, body: { message: 'Not Found' } } });
    gh.stub.on({ method: 'GET', path: PULLS, reply: { status: 404, body: { message: 'Not Found' } } });
    const token = await refusalOf(
      mintInstallationToken({
        config: { v: 1, appId: 42, clientId: 'Iv1', keyFile: 'k.pem' },
        privateKey: pem,
        urls: { api: gh.stub.url, web: gh.stub.url },
        owner: 'octo',
        repo: 'widgets',
        permissions: { contents: 'write' },
        httpTimeoutMs: TIMEOUT_MS,
      }),
    );
    const client = new GitHubClient({ restUrl: gh.stub.url, graphqlUrl: gh.stub.graphqlUrl, token: async () => TOKEN, clock: systemClock });
    const forge = await refusalOf(client.rest({ method: 'GET', path: PULLS, what: 'list' }, z.unknown()));
    expect(shape(token)).toEqual(shape(forge));
    expect(token.exit).toBe(3);
    expect(token.message).toContain('not installed on octo/widgets');
  });
});
