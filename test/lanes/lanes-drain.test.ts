// abcd drain: N lanes in one process and drains in several clones build each item once,
// dependencies after their dependencies, and leave no worktree or agent process behind.
import { readdir } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import {
  laneRun,
  COMMITTING_AGENT,
  itemStatus,
  laneSession,
  mainWorkSubjects,
  processesWith,
  remoteWithItems,
  type ItemSpec,
} from '../harness/lanes.js';

const TEN: ItemSpec[] = [
  ...['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((slug) => ({ slug })),
  { slug: 'i', dependsOn: ['a', 'b'] },
  { slug: 'j', dependsOn: ['i'] },
];

async function laneDirs(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => n.startsWith('abcd-lane-') || n.startsWith('abcd-land-'));
}

describe('drain', () => {
  afterAll(cleanupTemp);

  it('3 lanes over 10 items: each landed once, dependencies first, every item done, nothing left running', async () => {
    const remote = await remoteWithItems(TEN);
    // The lane's own temp folder: what it leaves there is its own, whatever runs beside it.
    const tmp = await tempDir('drain-tmp');
    const s = await laneSession(remote, 'drainer', { TMPDIR: tmp });
    const marker = `drain-marker-${process.pid}-${Date.now()}`;
    const r = await s.abcd(['drain', '--lanes', '3', '--json', '--agent', `${COMMITTING_AGENT} # ${marker}`], { timeoutMs: 150_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const cycles = laneRun(r).record.cycles as Array<{ item: string; outcome: string }>;
    expect(cycles.map((c) => c.item).sort()).toEqual(TEN.map((i) => i.slug).sort());
    expect(cycles.every((c) => c.outcome === 'landed')).toBe(true);
    const subjects = (await mainWorkSubjects(remote)).filter((x) => x.startsWith('agent: '));
    expect(subjects).toHaveLength(10);
    const at = (slug: string) => subjects.indexOf(`agent: local:item:${slug}`);
    expect(at('i')).toBeGreaterThan(Math.max(at('a'), at('b')));
    expect(at('j')).toBeGreaterThan(at('i'));
    for (const i of TEN) expect(await itemStatus(remote, i.slug)).toBe('done');
    const refs = [...(await remote.refs()).keys()];
    expect(refs.filter((x) => x.startsWith('refs/heads/lane/') || x.startsWith('refs/heads/abcd/queue/'))).toEqual([]);
    expect(refs.filter((x) => x.startsWith('refs/heads/abcd/lanes/'))).toHaveLength(1);
    expect(await processesWith(marker)).toEqual([]);
    expect(await laneDirs(tmp)).toEqual([]);
    expect((await s.git(['worktree', 'list'])).split('\n')).toHaveLength(1);
  }, 180_000);

  it('two drains in two clones over the same 10 items: no item is built twice', async () => {
    const remote = await remoteWithItems(TEN);
    const [a, b] = await Promise.all([laneSession(remote, 'east'), laneSession(remote, 'west')]);
    const runs = await Promise.all(
      [a, b].map((s) => s.abcd(['drain', '--lanes', '2', '--json', '--agent', COMMITTING_AGENT], { timeoutMs: 150_000 })),
    );
    for (const r of runs) expect(r.code, r.stdout + r.stderr).toBe(0);
    const landed = runs.flatMap((r) =>
      (laneRun(r)?.record?.cycles ?? []).filter((c: { outcome: string }) => c.outcome === 'landed').map((c: { item: string }) => c.item),
    );
    expect(landed.sort()).toEqual(TEN.map((i) => i.slug).sort());
    const subjects = (await mainWorkSubjects(remote)).filter((x) => x.startsWith('agent: '));
    expect(new Set(subjects).size).toBe(subjects.length);
    expect(subjects).toHaveLength(10);
  }, 180_000);
});
