// What abcd keeps where others read it loses anything shaped like a credential.
import { describe, expect, it } from 'vitest';
import { SCRUBBED, scrubSecrets } from '../../src/core/scrub.js';

describe('scrubSecrets', () => {
  it("blanks GitHub's tokens, a model key and a PEM block, keeping their kind and the text around them", () => {
    const text = [
      'push with ghs_16C7e42F292c6912E7710c838347Ae178B4a done',
      'user ghu_abcdefghijklmnopqrstuvwxyz0123456789 oauth gho_abcdefghijklmnop1234 pat ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345',
      'refresh ghr_FAKEcanaryNotARealRefreshToken0123456789abcdefABCDEF',
      'fine-grained github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz',
      'keys sk-proj-abcdefghijklmnop0123 and sk-ant-api03-abcdefghijklmnopqrstuvwxyz-_0123',
      '-----BEGIN OPENSSH PRIVATE KEY-----',
      'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ',
      '-----END OPENSSH PRIVATE KEY-----',
      'after',
    ].join('\n');
    const out = scrubSecrets(text);
    for (const secret of [
      '16C7e42F',
      'abcdefghijklmnopqrstuvwxyz0123456789',
      'abcdefghijklmnop1234',
      'ABCDEFGHIJKLMNOP',
      '1B4a2e77',
      '11ABCDEFG',
      'proj-abcdef',
      'api03',
      'b3BlbnNz',
    ])
      expect(out).not.toContain(secret);
    expect(out).toContain(`ghs_${SCRUBBED} done`);
    expect(out).toContain(`github_pat_${SCRUBBED}`);
    expect(out).toContain(`sk-${SCRUBBED} and`);
    expect(out).toContain('push with ');
    expect(out).toMatch(/PEM block \[scrubbed\]-----\nafter$/);
  });

  it('blanks the part of a PEM block a tail cut, from either side', () => {
    expect(scrubSecrets('MIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\nnext')).toBe(`-----PEM block ${SCRUBBED}-----\nnext`);
    expect(scrubSecrets('before\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB')).toBe(`before\n-----PEM block ${SCRUBBED}-----`);
  });

  it('leaves words that only contain a prefix, and short ones', () => {
    const text = 'risk-free-assessment-of-things, task-runner-configuration, sk-short, ghs_short, a github_pattern';
    expect(scrubSecrets(text)).toBe(text);
  });
});
