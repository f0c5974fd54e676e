// A change that carries the exact value of a credential abcd holds never lands: not in a commit
// subject (a squash lists subjects on main), not in a file name, not in an added line.
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { remoteWithItems } from '../harness/lanes.js';
import { makeSession, type Session } from '../harness/session.js';

// A canary standing for the model key in the lander's environment.
const KEY = 'canary-model-key-2b8d4f6a0c1e';

async function tryLand(s: Session, item: string, o: { file: string; content: string; subject: string; strategy?: string }) {
  expect((await s.abcd(['reserve', item])).code).toBe(0);
  await s.git(['checkout', '-q', '-b', `work/${item}`, 'origin/main']);
  await s.commit(o.file, o.content, o.subject);
  return s.abcd(['land', item, '--json', ...(o.strategy ? ['--strategy', o.strategy] : [])]);
}

describe('a known secret in the change', () => {
  afterAll(cleanupTemp);

  it('refuses the land when the model key is in a commit subject, a file name or an added line; main stays put', async () => {
    const remote = await remoteWithItems([{ slug: 'subject' }, { slug: 'name' }, { slug: 'line' }, { slug: 'clean' }]);
    const s = await makeSession(remote.url, 'person', { env: { ANTHROPIC_API_KEY: KEY } });
    const before = (await remote.refs()).get('refs/heads/main');
    const cases = [
      ['subject', { file: 'a.txt', content: 'a\n', subject: `use key ${KEY}`, strategy: 'squash' }, 'message'],
      ['name', { file: `notes-${KEY}.txt`, content: 'b\n', subject: 'notes' }, 'path'],
      ['line', { file: 'c.txt', content: `key=${KEY}\n`, subject: 'config' }, 'line'],
    ] as const;
    for (const [item, change, where] of cases) {
      const r = await tryLand(s, item, change);
      expect(r.code, r.stdout + r.stderr).toBe(3);
      expect(r.json.refusal).toMatchObject({ code: 'secret-in-change', data: { item, secret: 'ANTHROPIC_API_KEY', where } });
      expect(r.stdout + r.stderr).not.toContain(KEY);
    }
    expect((await remote.refs()).get('refs/heads/main')).toBe(before);
    const clean = await tryLand(s, 'clean', { file: 'd.txt', content: 'd\n', subject: 'clean' });
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
  }, 90_000);
});
