// What an agent prints reaches the remote lane record (its tail) and the run's log scrubbed,
// whatever form a secret takes: a token an ANSI escape interrupts or a line break splits, the
// model key abcd holds in base64, an AWS secret key, a bearer JWT.
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { COMMITTING_AGENT, laneRun, laneSession, remoteWithItems } from '../harness/lanes.js';

// A canary standing for the model key in the lane host's environment.
const KEY = 'canary-model-key-9d3e7a1b5c0f';
// Shape tests need strings in the shapes the scrubber detects; none is a credential: a
// GitHub-token-shaped canary, AWS's documentation example key, a JWT of {"alg":"HS256"}.{"sub":"canary"}.
const BODY = 'CanaryNotAToken0123456789abcdefXYZ';
const AWS = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjYW5hcnkifQ.c2lnbmF0dXJlLWNhbmFyeQ';
const LEAKS = [BODY.slice(10), KEY, Buffer.from(KEY).toString('base64').slice(0, 24), 'EXAMPLEKEY', 'eyJzdWIiOiJjYW5hcnkifQ'];

afterAll(cleanupTemp);

describe("a lane's record and log", () => {
  it('keep no secret the agent printed, in any of the forms that passed before', async () => {
    const script = [
      `printf 'escaped ghs_${BODY.slice(0, 10)}\\033[1m${BODY.slice(10)}\\033[0m here\\n'`,
      `printf 'split ghs_${BODY.slice(0, 10)}\\n${BODY.slice(10)} there\\n'`,
      `echo "encoded $(printf %s '${KEY}' | base64)"`,
      `echo "aws_secret_access_key=${AWS}"`,
      `echo 'curl -H "Authorization: Bearer ${JWT}" https://example.invalid'`,
      'echo "last words"',
    ].join('\n');
    const agent = `echo ${Buffer.from(script).toString('base64')} | base64 -d | sh; ${COMMITTING_AGENT}`;
    const remote = await remoteWithItems([{ slug: 'noisy' }]);
    const s = await laneSession(remote, 'noisy', { ANTHROPIC_API_KEY: KEY });
    const r = await s.abcd(['drain', '--json', '--sandbox', 'none', '--agent', agent], { timeoutMs: 90_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const lane = [...(await remote.refs()).keys()].find((k) => k.startsWith('refs/heads/abcd/lanes/'))!;
    const record = (await execa('git', ['-C', remote.dir, 'show', `${lane}:record.json`])).stdout;
    const log = (await s.abcd(['logs', laneRun(r).runId])).stdout;
    for (const [where, text] of [
      ['record', record],
      ['log', log],
    ] as const) {
      expect(text, where).toContain('last words');
      expect(text, where).toContain('ghs_[scrubbed]');
      for (const leaked of LEAKS) expect(text, `${where}: ${leaked}`).not.toContain(leaked);
    }
  }, 120_000);
});
