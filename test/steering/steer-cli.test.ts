// `abcd steer` on its own: it writes one request record (author, time, text) and
// nothing else; bad input is a usage error that writes nothing; a steer record this abcd
// cannot read is listed under refused, never guessed at.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { remoteWithItems } from '../harness/lanes.js';
import { writeRawRecord } from '../harness/remote.js';
import { makeSession } from '../harness/session.js';
import { refsUnder, remoteRecord } from '../harness/steer.js';

describe('abcd steer', () => {
  afterAll(cleanupTemp);

  it('writes one request record; refuses bad input writing nothing; a newer record is refused by name', async () => {
    const remote = await remoteWithItems([{ slug: 'page' }]);
    const s = await makeSession(remote.url, 'person');
    await writeFile(join(s.dir, 'notes.md'), 'line one\nline two\n');
    const r = await s.abcd(['steer', 'page', '--from-file', 'notes.md', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json).toMatchObject({ ok: true, item: 'page', author: expect.stringMatching(/^person@example\.com\/.+\/person$/) });
    expect(r.json.heldBy).toBeNull();
    const ref = `refs/heads/abcd/steer/local/item/page/${r.json.id}`;
    expect(r.json.ref).toBe(ref);
    expect(await refsUnder(remote, 'refs/heads/abcd/')).toEqual([ref]);
    expect(await remoteRecord(remote, ref)).toMatchObject({
      abcd: 'steer',
      v: 1,
      id: r.json.id,
      item: 'local:item:page',
      author: { person: 'person@example.com', session: 'person' },
      at: Date.parse(r.json.at),
      text: 'line one\nline two',
    });
    const text = await s.abcd(['steer', 'page', 'plain words']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^steer \S+ recorded for page; no lane holds it now/);

    for (const args of [
      ['steer', 'page', '--json'],
      ['steer', 'page', '   ', '--json'],
      ['steer', 'page', 'words', '--from-file', 'notes.md', '--json'],
      ['steer', 'page', '--from-file', 'missing.md', '--json'],
      ['steer', 'page', 'x'.repeat(8001), '--json'],
      ['steer', 'Not..An:item', 'words', '--json'],
      ['steer', 'no-such-item', 'words', '--json'],
    ]) {
      const bad = await s.abcd(args);
      expect(bad.code, args.join(' ')).toBe(2);
      expect(bad.json.refusal.code).toBe('usage');
    }
    expect(await refsUnder(remote, 'refs/heads/abcd/steer/')).toHaveLength(2);

    const future = 'refs/heads/abcd/steer/local/item/page/20990101T000000Z-abcdef12';
    await writeRawRecord(remote.dir, future, JSON.stringify({ abcd: 'steer', v: 2, anything: true }));
    const st = await s.abcd(['status', '--json']);
    expect(st.code).toBe(0);
    expect(st.json.steers).toHaveLength(2);
    expect(st.json.refused).toEqual([expect.objectContaining({ ref: future, code: 'record-too-new' })]);
  });
});
