// Output streamed into a lane's log is scrubbed by whole lines: a token cut between two chunks
// and a PEM block spread over many lines never reach the file.
import { describe, expect, it } from 'vitest';
import { lineScrubber } from '../../src/lanes/logs/scrub-lines.js';

describe('lineScrubber', () => {
  it('blanks a token split between chunks and a PEM block over several chunks, keeping the text around them', () => {
    const s = lineScrubber();
    const chunks = [
      'hello ghp_abc',
      'defghijklmnopqrst there\nkey:\n-----BEGIN RSA PRIVATE KEY-----\nMIIabc\nMII',
      'def\n-----END RSA',
      ' PRIVATE KEY----- after\nlast sk-1234567890123456',
    ];
    const out = chunks.map((c) => s.push(c)).join('') + s.end();
    expect(out).toBe('hello ghp_[scrubbed] there\nkey:\n-----PEM block [scrubbed]-----\n after\nlast sk-[scrubbed]');
  });

  it('holds an unfinished line until its end, and passes text with no secret unchanged', () => {
    const s = lineScrubber();
    expect(s.push('no newline yet')).toBe('');
    expect(s.push(' ... done\nnext')).toBe('no newline yet ... done\n');
    expect(s.end()).toBe('next');
  });
});
