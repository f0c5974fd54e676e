// What the scrubber must catch besides a plain token: one interrupted by a terminal escape or
// split over lines, a secret abcd holds encoded in base64, an AWS secret key and a bearer JWT,
// in the result record's tail and in the run's log alike.
import { afterEach, describe, expect, it } from 'vitest';
import { forgetSecrets, rememberSecret } from '../../src/core/known-secrets.js';
import { scrubSecrets } from '../../src/core/scrub.js';
import { recordTail } from '../../src/lanes/logs/output-tail.js';
import { lineScrubber } from '../../src/lanes/logs/scrub-lines.js';

// A canary standing for the model key abcd holds: no real format, found by its exact value.
const MODEL_KEY = 'canary-model-key-5e0a1f9c3b7d';
// The shape tests need strings in the shapes the scrubber detects. These are not credentials:
// a GitHub-token-shaped canary, AWS's own documentation example secret key, and a JWT whose
// parts decode to {"alg":"HS256"}, {"sub":"canary"} and the text "signature-canary".
const TOKEN_BODY = 'CanaryNotAToken0123456789abcdefXYZ';
const GH_SHAPED = `ghs_${TOKEN_BODY}`;
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjYW5hcnkifQ.c2lnbmF0dXJlLWNhbmFyeQ';

/** The text as the log keeps it: streamed in small chunks through the line scrubber. */
function logged(text: string): string {
  const s = lineScrubber();
  let out = '';
  for (let i = 0; i < text.length; i += 7) out += s.push(text.slice(i, i + 7));
  return out + s.end();
}

/** The text as the remote record keeps it: the tail, joined. */
function recorded(text: string): string {
  return recordTail(text).join('\n');
}

const KEPT = [
  ['the record', recorded],
  ['the log', logged],
] as const;

describe('the scrubber', () => {
  afterEach(forgetSecrets);

  it.each(KEPT)('blanks a token interrupted by an ANSI escape in %s', (_where, keep) => {
    const out = keep(`pushing with ghs_CanaryNotAT\u001b[31moken0123456789abcdefXYZ\u001b[0m done\n`);
    expect(out).not.toContain('oken0123456789');
    expect(out).toContain('ghs_[scrubbed] done');
  });

  it.each(KEPT)('blanks a token split over two lines, and a known secret split anywhere, in %s', (_where, keep) => {
    rememberSecret('ANTHROPIC_API_KEY', MODEL_KEY);
    const out = keep(`token ghs_CanaryNotA\nToken0123456789abcdefXYZ next\nkey ${MODEL_KEY.slice(0, 13)}\n${MODEL_KEY.slice(13)} end\n`);
    expect(out).not.toContain('Token0123456789');
    expect(out).not.toContain(MODEL_KEY.slice(13));
    expect(out).toContain('next');
    expect(out).toContain('end');
  });

  it.each(KEPT)('blanks a known secret in base64, whole or inside a longer encoded text, and a base64 token, in %s', (_where, keep) => {
    rememberSecret('GH_TOKEN', MODEL_KEY);
    const whole = Buffer.from(MODEL_KEY).toString('base64');
    const inside = Buffer.from(`export KEY=${MODEL_KEY}; echo hi`).toString('base64');
    const token = Buffer.from(`Authorization: token ${GH_SHAPED}`).toString('base64');
    const out = keep(`a ${whole}\nb ${inside}\nc ${token}\n`);
    for (const leaked of [whole, inside.slice(16, 40), token.slice(8, 40)]) expect(out).not.toContain(leaked);
    expect(out).toMatch(/^a .*\nb .*\nc /);
  });

  it.each(KEPT)('blanks an AWS secret key and a bearer JWT, and leaves a git object id, in %s', (_where, keep) => {
    const oid = 'd2c976b0a1f4e3c2b1a0998877665544332211ff';
    const out = keep(`aws_secret_access_key = ${AWS_SECRET}\ncurl -H "Authorization: Bearer ${JWT}"\njwt ${JWT}\nat ${oid}\n`);
    expect(out).not.toContain('EXAMPLEKEY');
    expect(out).not.toContain('eyJzdWIiOiJjYW5hcnkifQ');
    expect(out).toContain('Bearer [scrubbed]');
    expect(out).toContain(oid);
  });

  it('leaves ordinary prose, hex ids and short words alone', () => {
    const text = 'Ran 12 tests in 3.2s; commit 0123456789abcdef0123456789abcdef01234567 is fine.\nrisk-free refactoring';
    expect(scrubSecrets(text)).toBe(text);
  });
});
