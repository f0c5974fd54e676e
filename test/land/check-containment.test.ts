// A land check is hostile code, and it must not reach past its own test: what it writes in its
// tool cache is found by no check of another tree (nor by the person's next land), and the
// objects it can read are those main and the entries under test reach, never the clone's own
// store, which also holds the person's never-pushed work.
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { COMMITTING_AGENT, remoteWithItems } from '../harness/lanes.js';
import { makeSession, type Session } from '../harness/session.js';

const CANARY = 'canary-env-5b19c3';

/** Reserves `item`, commits one file on its work branch and lands it; the land's answer. */
async function landOne(s: Session, item: string) {
  expect((await s.abcd(['reserve', item])).code).toBe(0);
  await s.git(['checkout', '-q', '-b', `work/${item}`, 'origin/main']);
  await s.commit(`${item}.txt`, `${item}\n`, `${item}: a file`);
  return s.abcd(['land', item, '--json'], { timeoutMs: 90_000 });
}

describe('a land check reaches nothing beyond its own test', () => {
  afterAll(cleanupTemp);

  it("check 1 (a lane's) writes into its tool cache; check 2, of another item (the person's land), does not find it, nor check 3", async () => {
    // The check plants a tool where the common caches live, and fails when it finds one planted.
    const check = [
      'for d in "$XDG_CACHE_HOME" "$npm_config_cache" "$PIP_CACHE_DIR"; do',
      '  if [ -e "$d/planted.sh" ]; then echo "found a planted tool in $d"; exit 1; fi',
      '  mkdir -p "$d" && echo "echo pwned" > "$d/planted.sh" || { echo "cannot write the cache $d"; exit 2; }',
      'done',
    ].join('\n');
    const remote = await remoteWithItems([{ slug: 'lane' }, { slug: 'one' }, { slug: 'two' }], { land: { checks: check } });
    const s = await makeSession(remote.url, 'person');
    // A lane's check plants first; the person's own land of another item does not find it.
    const lane = await s.abcd(['build', 'lane', '--json', '--sandbox', 'bwrap', '--agent', COMMITTING_AGENT], { timeoutMs: 90_000 });
    expect(lane.json, lane.stdout + lane.stderr).toMatchObject({ ok: true, outcome: 'landed' });
    await s.git(['fetch', '-q', 'origin']);
    const first = await landOne(s, 'one');
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.json).toMatchObject({ checksSandbox: 'bwrap' });
    // Nor does the check of the next item find what the person's check left.
    const second = await landOne(s, 'two');
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect((await remote.refs()).get('refs/heads/main')).toBe(second.json.tip);
  }, 150_000);

  it("a never-pushed .env in the person's clone is unreadable from a check, which still reads main and the entry", async () => {
    const blob = (await execa('git', ['hash-object', '--stdin'], { input: `TOKEN=${CANARY}\n` })).stdout.trim();
    const check = [
      `if git cat-file -e ${blob} 2>/dev/null; then echo "read the unpushed .env"; exit 1; fi`,
      `if git cat-file --batch-all-objects --batch-check 2>/dev/null | grep -q ${blob}; then echo "listed it"; exit 1; fi`,
      // What an honest check needs: the commit under test, main's history and the entry's change.
      '[ "$(git rev-parse HEAD)" = "$ABCD_LAND_TIP" ] || exit 3',
      'git log -q --format=%H "$ABCD_LAND_BASE" > /dev/null || exit 4',
      'git diff --quiet "$ABCD_LAND_BASE" HEAD -- secretless.txt; [ $? -eq 1 ] || exit 5',
      'git cat-file -p HEAD:secretless.txt | grep -q secretless || exit 6',
    ].join('\n');
    const remote = await remoteWithItems([{ slug: 'secretless' }], { land: { checks: check } });
    const s = await makeSession(remote.url, 'person');
    // The person's own work, committed on a branch of theirs and never pushed.
    await s.git(['checkout', '-q', '-b', 'private']);
    await s.commit('.env', `TOKEN=${CANARY}\n`, 'local settings');
    await s.git(['checkout', '-q', 'main']);
    expect((await s.git(['cat-file', '-t', blob])).trim()).toBe('blob');
    const landed = await landOne(s, 'secretless');
    expect(landed.code, landed.stdout + landed.stderr).toBe(0);
    expect(landed.json).toMatchObject({ checksSandbox: 'bwrap' });
  }, 120_000);
});
