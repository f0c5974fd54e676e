// The clock-skew log's files: a writer's bracket that cannot be read says nothing and is
// removed, a folder not made yet holds no bracket, and a torn file is no knowledge.
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SkewLog } from '../../src/repo/clock-skew.js';
import { cleanupTemp, tempDir } from '../harness/git-env.js';

afterAll(cleanupTemp);

const NOW = Date.UTC(2026, 11, 1);

describe('the skew log', () => {
  it('holds no bracket before its folder exists, then the bracket it recorded', async () => {
    const log = new SkewLog(join(await tempDir('skew'), 'clock'));
    expect(await log.brackets(NOW)).toEqual([]);
    expect(await log.readLastRead()).toBeUndefined();
    await log.record([{ writer: 'ada', lo: -5, hi: 5, seenAt: NOW }]);
    expect(await log.brackets(NOW)).toEqual([{ writer: 'ada', lo: -5, hi: 5, seenAt: NOW }]);
  });

  it('a bracket the disk will not read (a link loop) or a torn one is removed, and the others stand', async () => {
    const dir = join(await tempDir('skew'), 'clock');
    const log = new SkewLog(dir);
    await log.record([{ writer: 'ada', lo: -5, hi: 5, seenAt: NOW }]);
    const writers = join(dir, 'writers');
    await symlink('loop.json', join(writers, 'loop.json'));
    await writeFile(join(writers, 'torn.json'), '{"writer":"b","lo":');
    await writeFile(join(dir, 'last-read.json'), '{"at":');
    expect(await log.brackets(NOW)).toEqual([{ writer: 'ada', lo: -5, hi: 5, seenAt: NOW }]);
    expect(await readdir(writers)).toHaveLength(1);
    expect(await log.readLastRead()).toBeUndefined();
  });

  it('a file where the writers folder goes holds no bracket, as a missing folder', async () => {
    const dir = join(await tempDir('skew'), 'clock');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'writers'), 'not a folder');
    expect(await new SkewLog(dir).brackets(NOW)).toEqual([]);
  });
});
