// The squash strategy (ADR 0093): an item's work lands as ONE commit on main, its done mark
// inside, authored by the work's author, named by the item's title and an Abcd-Item trailer;
// the commit that lands is the commit tested, alone or stacked under speculation.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, git, isolatedEnv, tempDir } from '../harness/git-env.js';
import { makeRemote, type BareRemote } from '../harness/remote.js';
import { makeSession, type AbcdRun, type Session } from '../harness/session.js';
import { COMMITTING_AGENT, laneSession, remoteWithItems } from '../harness/lanes.js';

// Each check appends what it saw: item, HEAD, HEAD's tree, HEAD's parent, its exit code.
const RECORD = 'echo "$ABCD_LAND_ITEM $(git rev-parse HEAD "HEAD^{tree}" "HEAD^" | tr "\\n" " ")0" >> "$CHECK_LOG"';
// Under speculation every check holds until all entries are queued (the test writes the go
// file), so the entries behind test while those ahead are still queued: on a stack.
const HOLD = 'while [ ! -f "$CHECK_LOG.go" ]; do sleep 0.1; done; sleep 1; ';
const MAIN = 'refs/heads/main';
// main's commits before any land: the remote's initial commit, then the items and config.
const SEEDED = 2;

interface Lab {
  remote: BareRemote;
  machine: string;
  log: string;
}

// A '#' in the subject survives: git's message clean-up would strip a line that starts with one.
const titleOf = (slug: string) => `Make ${slug} work #${slug.length}`;

/** A remote whose main has a ready item file per slug, titled titleOf(slug), and the land config. */
async function squashRemote(slugs: string[], land: Record<string, unknown>): Promise<Lab> {
  const remote = await makeRemote();
  const root = await tempDir('land-squash');
  const env = isolatedEnv(root);
  const seed = join(root, 'seed');
  await git(root, ['clone', '-q', remote.url, seed], env);
  await git(seed, ['config', 'commit.gpgsign', 'false'], env);
  await git(seed, ['config', 'user.email', 'owner@example.com'], env);
  await mkdir(join(seed, '.abcd/items'), { recursive: true });
  for (const slug of slugs)
    await writeFile(
      join(seed, `.abcd/items/${slug}.md`),
      `---\ntitle: ${JSON.stringify(titleOf(slug))}\nstatus: ready\n---\nDo ${slug}.\n`,
    );
  await writeFile(join(seed, '.abcd/config.json'), JSON.stringify({ land: { sandbox: 'none', env: ['CHECK_LOG'], ...land } }));
  await writeFile(join(seed, 'README.md'), 'the project\n');
  await git(seed, ['add', '.'], env);
  await git(seed, ['commit', '-q', '-m', 'items and land config'], env);
  await git(seed, ['push', '-q', 'origin', 'main'], env);
  return { remote, machine: join(root, 'machine'), log: join(root, 'checks.log') };
}

function sessionOn(lab: Lab, name: string): Promise<Session> {
  return makeSession(lab.remote.url, name, { env: { ABCD_MACHINE_DIR: lab.machine, ABCD_GATE_SLOTS: '4', CHECK_LOG: lab.log } });
}

/** Reserves the item and commits two changes on its work branch; the second, with `author`, is the work head. */
async function twoCommits(s: Session, slug: string, o: { file?: string; author?: string } = {}): Promise<string> {
  expect((await s.abcd(['reserve', slug])).code).toBe(0);
  await s.git(['checkout', '-q', '-b', `work/${slug}`]);
  await s.commit(`${slug}-notes.txt`, `notes for ${slug}\n`, `${slug}: notes`);
  const file = o.file ?? `${slug}.txt`;
  await writeFile(join(s.dir, file), `${slug} was here\n`);
  await s.git(['add', file]);
  await s.git(['commit', '-q', '-m', `${slug}: the work`, ...(o.author ? ['--author', o.author] : [])]);
  return s.git(['rev-parse', 'HEAD']);
}

interface Landed {
  commit: string;
  tree: string;
  parents: string[];
  author: string;
  subject: string;
  body: string;
  items: string[];
}

/** main's commits after the seed, oldest first, each with what the squash promises about it. */
async function landedOnMain(lab: Lab): Promise<Landed[]> {
  const r = lab.remote.dir;
  const all = (await git(r, ['rev-list', '--reverse', 'main'], {})).split('\n').slice(SEEDED);
  const firstParent = (await git(r, ['rev-list', '--first-parent', '--reverse', 'main'], {})).split('\n').slice(SEEDED);
  // One commit per item: main's first-parent history is all of main.
  expect(all).toEqual(firstParent);
  const out: Landed[] = [];
  for (const commit of all) {
    const fmt = '%T%x00%P%x00%an <%ae>%x00%s%x00%b%x00%(trailers:key=Abcd-Item,valueonly,separator=%x01)';
    const [tree, parents, author, subject, body, items] = (await git(r, ['log', '-1', `--format=${fmt}`, commit], {})).split('\0');
    out.push({
      commit,
      tree: tree!,
      parents: parents!.split(' '),
      author: author!,
      subject: subject!,
      body: body!,
      items: items!.trim().split('\x01').filter(Boolean),
    });
  }
  return out;
}

async function statusAt(lab: Lab, commit: string, slug: string): Promise<string | undefined> {
  const text = await git(lab.remote.dir, ['show', `${commit}:.abcd/items/${slug}.md`], {});
  return /^status:\s*(\S+)/m.exec(text)?.[1];
}

async function checksSeen(lab: Lab) {
  return (await readFile(lab.log, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => {
      const [item, head, tree, parent, code] = l.split(' ');
      return { item: item!, head: head!, tree: tree!, parent: parent!, code: Number(code) };
    });
}

/** Every landed commit was tested on exactly its tree and parent, and its land answered that commit. */
async function expectTestedAsLanded(lab: Lab, landed: Landed[], runs: Map<string, AbcdRun>) {
  const seen = await checksSeen(lab);
  for (const l of landed) {
    const slug = l.items[0]!.replace('local:item:', '');
    expect(
      seen.some((s) => s.item === slug && s.code === 0 && s.head === l.commit && s.tree === l.tree && s.parent === l.parents[0]),
      `${slug} landed untested`,
    ).toBe(true);
    expect(runs.get(slug)!.json).toMatchObject({ ok: true, tip: l.commit, previousTip: l.parents[0] });
  }
}

/** One landed squash commit as the strategy promises it. */
async function expectSquashed(lab: Lab, l: Landed, slug: string, author: string) {
  expect(l.parents).toHaveLength(1);
  expect(l.subject).toBe(titleOf(slug));
  expect(l.items).toEqual([`local:item:${slug}`]);
  expect(l.author).toBe(author);
  expect(l.body).toContain(`- ${slug}: notes\n- ${slug}: the work\n`);
  // The done mark is inside the very commit that brought the work.
  expect(await statusAt(lab, l.commit, slug)).toBe('done');
  expect(await statusAt(lab, l.parents[0]!, slug)).toBe('ready');
  const files = (await git(lab.remote.dir, ['diff-tree', '--no-commit-id', '--name-only', '-r', l.commit], {})).split('\n');
  expect(files.sort()).toEqual([`.abcd/items/${slug}.md`, `${slug}-notes.txt`, `${slug}.txt`]);
}

describe('land --strategy squash', () => {
  afterAll(cleanupTemp);

  it('three sessions: main gets exactly one commit per item, done mark inside, the work author, title and trailer, each tested', async () => {
    const slugs = ['alpha', 'beta', 'gamma'];
    const lab = await squashRemote(slugs, { checks: RECORD });
    const sessions = await Promise.all(slugs.map((s) => sessionOn(lab, `s-${s}`)));
    // beta's work head has an author who is not its committer: the squash is the author's.
    await Promise.all(sessions.map((s, i) => twoCommits(s, slugs[i]!, i === 1 ? { author: 'Ada Lovelace <ada@example.com>' } : {})));
    const runs = await Promise.all(
      sessions.map((s, i) => s.abcd(['land', slugs[i]!, '--strategy', 'squash', '--json', '--wait', '3m'], { timeoutMs: 200_000 })),
    );
    for (const r of runs) expect(r.code, r.stdout + r.stderr).toBe(0);
    const landed = await landedOnMain(lab);
    expect(landed).toHaveLength(3);
    expect((await lab.remote.refs()).get(MAIN)).toBe(landed.at(-1)!.commit);
    const authors = new Map([
      ['alpha', 'Test Person <s-alpha@example.com>'],
      ['beta', 'Ada Lovelace <ada@example.com>'],
      ['gamma', 'Test Person <s-gamma@example.com>'],
    ]);
    for (const l of landed) {
      const slug = l.items[0]!.replace('local:item:', '');
      await expectSquashed(lab, l, slug, authors.get(slug)!);
    }
    expect(landed.map((l) => l.items[0]).sort()).toEqual(slugs.map((s) => `local:item:${s}`));
    await expectTestedAsLanded(lab, landed, new Map(slugs.map((s, i) => [s, runs[i]!])));
  }, 240_000);

  it('land.strategy squash is a session default; --strategy rebase still wins', async () => {
    const lab = await squashRemote(['one', 'two'], { checks: RECORD, strategy: 'squash' });
    const [a, b] = await Promise.all([sessionOn(lab, 'ann'), sessionOn(lab, 'ben')]);
    await twoCommits(a, 'one');
    await twoCommits(b, 'two');
    const one = await a.abcd(['land', 'one', '--json']);
    expect(one.code, one.stdout + one.stderr).toBe(0);
    const two = await b.abcd(['land', 'two', '--json', '--strategy', 'rebase']);
    expect(two.code, two.stdout + two.stderr).toBe(0);
    const subjects = (await git(lab.remote.dir, ['log', '--reverse', '--format=%s', 'main'], {})).split('\n').slice(SEEDED);
    expect(subjects).toEqual([titleOf('one'), 'two: notes', 'two: the work', 'Mark two done']);
  }, 180_000);

  it('a conflict is refused naming the files; main, the work branch and the queue as they were', async () => {
    const lab = await squashRemote(['left', 'right'], { checks: RECORD });
    const [a, b] = await Promise.all([sessionOn(lab, 'ann'), sessionOn(lab, 'ben')]);
    await twoCommits(a, 'left', { file: 'README.md' });
    const head = await twoCommits(b, 'right', { file: 'README.md' });
    const won = await a.abcd(['land', 'left', '--strategy', 'squash', '--json']);
    expect(won.code, won.stdout + won.stderr).toBe(0);
    const lost = await b.abcd(['land', 'right', '--strategy', 'squash', '--json']);
    expect(lost.code, lost.stdout).toBe(3);
    expect(lost.json.refusal).toMatchObject({
      code: 'conflict',
      data: { item: 'right', files: ['README.md'], strategy: 'squash', head, mainTip: won.json.tip, leftQueue: true },
    });
    expect(lost.json.refusal.message).toMatch(/right does not rebase cleanly onto the main tip [0-9a-f]{12}: conflicts in README\.md/);
    const refs = await lab.remote.refs();
    expect(refs.get(MAIN)).toBe(won.json.tip);
    expect(refs.get('refs/heads/work/right')).toBe(head);
    expect([...refs.keys()].filter((k) => k.startsWith('refs/heads/abcd/queue/'))).toEqual([]);
    expect(await b.git(['rev-parse', 'work/right'])).toBe(head);
    expect(await b.git(['status', '--porcelain'])).toBe('');
  }, 180_000);

  it('speculation (land.speculate 3) with squash entries: each tests on the squashes ahead of it, all land as tested', async () => {
    const slugs = ['spec-a', 'spec-b', 'spec-c'];
    const lab = await squashRemote(slugs, { checks: HOLD + RECORD, speculate: 3 });
    const sessions = await Promise.all(slugs.map((s) => sessionOn(lab, `s-${s}`)));
    await Promise.all(sessions.map((s, i) => twoCommits(s, slugs[i]!)));
    const running: Promise<AbcdRun>[] = [];
    for (const [i, s] of sessions.entries()) {
      running.push(s.abcd(['land', slugs[i]!, '--strategy', 'squash', '--json', '--wait', '5m'], { timeoutMs: 400_000 }));
      // The next one enqueues only once this one's entry is on the remote: the queue order is known.
      const entry = `refs/heads/abcd/queue/local/item/${slugs[i]}`;
      for (let k = 0; k < 1200 && !(await lab.remote.refs()).has(entry); k++) await new Promise((res) => setTimeout(res, 50));
    }
    await writeFile(`${lab.log}.go`, '');
    const runs = await Promise.all(running);
    for (const r of runs) expect(r.code, r.stdout + r.stderr).toBe(0);
    const landed = await landedOnMain(lab);
    expect(landed.map((l) => l.items[0])).toEqual(slugs.map((s) => `local:item:${s}`));
    for (const [i, l] of landed.entries()) await expectSquashed(lab, l, slugs[i]!, `Test Person <s-${slugs[i]}@example.com>`);
    await expectTestedAsLanded(lab, landed, new Map(slugs.map((s, i) => [s, runs[i]!])));
    // It speculated, and every clone predicted the squashes ahead exactly: each entry tested once.
    expect(runs.some((r) => r.json.speculation?.position > 0)).toBe(true);
    const seen = await checksSeen(lab);
    for (const slug of slugs) expect(seen.filter((s) => s.item === slug)).toHaveLength(1);
  }, 480_000);

  it('a drain lands with squash by default: main reads as the items, no "Mark ... done" commits', async () => {
    const slugs = ['north', 'south', 'east'];
    const remote = await remoteWithItems(slugs.map((slug) => ({ slug })));
    const s = await laneSession(remote, 'drainer');
    const r = await s.abcd(['drain', '--lanes', '1', '--json', '--agent', COMMITTING_AGENT], { timeoutMs: 150_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const log = (
      await git(remote.dir, ['log', '--first-parent', '--reverse', '--format=%s%x00%(trailers:key=Abcd-Item,valueonly)', 'main'], {})
    )
      .split('\n')
      .filter(Boolean)
      .slice(SEEDED)
      .map((l) => l.split('\0').map((x) => x.trim()));
    // remoteWithItems titles each item with its slug.
    expect(log.map(([subject]) => subject).sort()).toEqual([...slugs].sort());
    for (const [subject, item] of log) expect(item).toBe(`local:item:${subject}`);
    const all = (await git(remote.dir, ['rev-list', '--count', 'main'], {})).trim();
    expect(all).toBe(String(slugs.length + SEEDED));
  }, 180_000);

  it("a lane follows land.strategy when the repository sets one: rebase keeps the agent's commit and the marking", async () => {
    const remote = await remoteWithItems([{ slug: 'west' }], { land: { strategy: 'rebase' } });
    const s = await laneSession(remote, 'drainer');
    const r = await s.abcd(['drain', '--lanes', '1', '--json', '--agent', COMMITTING_AGENT], { timeoutMs: 150_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const subjects = (await git(remote.dir, ['log', '--reverse', '--format=%s', 'main'], {})).split('\n').slice(SEEDED);
    expect(subjects).toEqual(['agent: local:item:west', 'Mark west done']);
  }, 180_000);
});
