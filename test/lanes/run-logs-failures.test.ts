// A run's log folder when the disk refuses it: the run's record is lost, never the run; a
// run.json cut short or replaced reads as none; a log folder the sweep cannot read is left for the
// next run while the others are still swept.
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { readRunLogMeta, startRunLog, sweepOldRunLogs } from '../../src/lanes/logs/run-logs.js';
import { logsRoot, runLogDir } from '../../src/lanes/cycle/cycle-log.js';

afterAll(cleanupTemp);

const run = { runId: '20261201T000000Z-abc123', verb: 'build' as const, startedAt: 1 };

describe("a run's log folder when the disk refuses it", () => {
  it('a logs folder that cannot be made costs run.json, not the run', async () => {
    const common = await tempDir('runlog-refused');
    await mkdir(join(common, 'abcd'));
    await writeFile(logsRoot(common), 'a file where the folder goes\n');
    const finish = await startRunLog(common, run);
    await expect(finish('ok', 2)).resolves.toBeUndefined();
    expect(await readRunLogMeta(runLogDir(common, run.runId))).toBeUndefined();
  });

  it('run.json missing, cut short, or a folder reads as none; a whole one reads', async () => {
    const common = await tempDir('runlog-read');
    const dir = runLogDir(common, run.runId);
    expect(await readRunLogMeta(dir)).toBeUndefined();
    const finish = await startRunLog(common, run);
    expect(await readRunLogMeta(dir)).toMatchObject({ runId: run.runId, state: 'running' });
    await finish('ok', 2);
    expect(await readRunLogMeta(dir)).toMatchObject({ state: 'finished', end: 'ok', finishedAt: 2 });
    await writeFile(join(dir, 'run.json'), '{"runId":"20261201T0');
    expect(await readRunLogMeta(dir)).toBeUndefined();
    const other = runLogDir(common, '20261201T000000Z-def456');
    await mkdir(join(other, 'run.json'), { recursive: true });
    expect(await readRunLogMeta(other)).toBeUndefined();
  });

  it('the sweep passes over a log folder it cannot read and still removes the old ones', async () => {
    const common = await tempDir('runlog-sweep');
    const old = '20261101T000000Z-aaaaaa';
    const unreadable = '20261102T000000Z-bbbbbb';
    await mkdir(runLogDir(common, old), { recursive: true });
    await writeFile(join(runLogDir(common, old), '1-item.log'), 'old\n');
    // Not a folder: reading it as one fails (ENOTDIR), as a folder the disk refuses would.
    await writeFile(runLogDir(common, unreadable), 'not a folder\n');
    const removed = await sweepOldRunLogs(common, { retentionMs: 1000, now: Date.now() + 86_400_000, keep: 'none' });
    expect(removed).toEqual([old]);
    expect(existsSync(runLogDir(common, old))).toBe(false);
    expect(await readdir(logsRoot(common))).toEqual([unreadable]);
  });
});
