// A change of item files only is tested by abcd's own reading of the item files, not by
// land.checks: `abcd items add` lands while main's configured check fails, and a change whose
// item file does not read as an item is refused (a check failure naming the file) with main
// where it was. A change that touches anything else still runs the configured check.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, git, isolatedEnv, tempDir } from '../harness/git-env.js';
import { makeRemote, type BareRemote } from '../harness/remote.js';
import { makeSession, type Session } from '../harness/session.js';
import { ITEM_FILES_CHECK } from '../../src/land/checks/item-checks.js';

afterAll(cleanupTemp);

const RED_CHECK = 'echo "the suite is red on main" >&2; exit 1';
const MAIN = 'refs/heads/main';

async function redRemote(): Promise<BareRemote> {
  const remote = await makeRemote();
  const root = await tempDir('red');
  const env = isolatedEnv(root);
  const seed = join(root, 'seed');
  await git(root, ['clone', '-q', remote.url, seed], env);
  await git(seed, ['config', 'commit.gpgsign', 'false'], env);
  await mkdir(join(seed, '.abcd/items'), { recursive: true });
  await writeFile(join(seed, '.abcd/config.json'), JSON.stringify({ land: { checks: RED_CHECK, sandbox: 'none' } }));
  await writeFile(join(seed, '.abcd/items/old.md'), '---\ntitle: old\nstatus: ready\n---\nAn item already there.\n');
  await git(seed, ['add', '.'], env);
  await git(seed, ['commit', '-q', '-m', 'red check'], env);
  await git(seed, ['push', '-q', 'origin', 'main'], env);
  return remote;
}

async function landFiles(s: Session, item: string, files: Record<string, string>) {
  expect((await s.abcd(['reserve', item])).code).toBe(0);
  await s.git(['checkout', '-q', '-B', `work/${item}`, 'origin/main']);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(s.dir, path, '..'), { recursive: true });
    await writeFile(join(s.dir, path), text);
  }
  await s.git(['add', '.']);
  await s.git(['commit', '-q', '-m', `${item}: files`]);
  return s.abcd(['land', item, '--json']);
}

describe('items land without the full check', () => {
  it('items add lands while the configured check fails; an invalid item file is refused; other work still runs the check', async () => {
    const remote = await redRemote();
    const s = await makeSession(remote.url, 'ann');
    const added = await s.abcd(['items', 'add', 'new-thing', '--title', 'A new thing', '--json'], { timeoutMs: 60_000 });
    expect(added.code, added.stdout + added.stderr).toBe(0);
    const shown = await git(remote.dir, ['show', 'main:.abcd/items/new-thing.md'], isolatedEnv(await tempDir('read')));
    expect(shown).toMatch(/title: "A new thing"/);

    // Closing it (its front matter edited) lands the same way.
    const closed = await s.abcd(['items', 'close', 'new-thing', '--json'], { timeoutMs: 60_000 });
    expect(closed.code, closed.stdout + closed.stderr).toBe(0);

    const before = (await remote.refs()).get(MAIN);
    const bad = await landFiles(s, 'bad', { '.abcd/items/bad.md': 'no front matter here\n' });
    expect(bad.code, bad.stdout).toBe(3);
    expect(bad.json.refusal).toMatchObject({
      code: 'check-failed',
      data: { check: ITEM_FILES_CHECK, exitCode: 1, output: expect.stringContaining('.abcd/items/bad.md') },
    });
    expect((await remote.refs()).get(MAIN)).toBe(before);

    // Anything beside an item file is the project's to test: the red check refuses it.
    await s.abcd(['release', 'bad']);
    const mixed = await landFiles(s, 'mixed', { '.abcd/items/mixed.md': '---\ntitle: mixed\nstatus: ready\n---\n', 'src.txt': 'code\n' });
    expect(mixed.code, mixed.stdout).toBe(3);
    expect(mixed.json.refusal).toMatchObject({ code: 'check-failed', data: { check: RED_CHECK } });
    expect((await remote.refs()).get(MAIN)).toBe(before);
  }, 120_000);
});
