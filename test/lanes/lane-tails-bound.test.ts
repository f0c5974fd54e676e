// However long a run, the tails keep its result record small: each tail within its budget
// whatever the agent printed, and only the newest cycles keep theirs.
import { describe, expect, it } from 'vitest';
import { encodeLaneResult, MAX_RESULT_CYCLES, type LaneResultRecord } from '../../src/records/lane-result.js';
import { agentTail, keepNewestTails, MAX_TAIL_BYTES, MAX_TAILED_CYCLES, recordTail } from '../../src/lanes/logs/output-tail.js';

describe('record tails', () => {
  it('a tail of wide, multi-byte, quote-heavy lines stays within its byte budget and the schema', () => {
    const line = '"\\' + '€'.repeat(300);
    const tail = recordTail(Array.from({ length: 50 }, () => line).join('\n'));
    expect(tail.length).toBeGreaterThan(0);
    expect(Buffer.byteLength(JSON.stringify(tail))).toBeLessThanOrEqual(MAX_TAIL_BYTES);
  });

  it('a run of the most cycles, each with both tails full, keeps tails on the newest cycles only', () => {
    const full = agentTail(Array.from({ length: 40 }, (_, i) => `line ${i} ${'y'.repeat(150)}`).join('\n')).outputTail!;
    let cycles: LaneResultRecord['cycles'] = [];
    for (let i = 0; i < MAX_RESULT_CYCLES; i++)
      cycles = keepNewestTails([
        ...cycles,
        { item: `i${i}`, outcome: 'failed', startedAt: 0, durationMs: 1, outputTail: full, checkTail: full },
      ]);
    expect(cycles.filter((c) => c.outputTail || c.checkTail)).toHaveLength(MAX_TAILED_CYCLES);
    expect(cycles.at(-1)!.outputTail).toEqual(full);
    const record: LaneResultRecord = {
      abcd: 'lane',
      v: 1,
      runId: 'r-1',
      verb: 'drain',
      holder: { person: 'p@example.com', host: 'h', session: 's' },
      lifecycle: 'poll',
      lanes: 1,
      state: 'finished',
      startedAt: 0,
      at: 0,
      ttl: 1000,
      current: [],
      cycles,
      deferred: [],
      usage: 0,
    };
    expect(Buffer.byteLength(encodeLaneResult(record))).toBeLessThan(64 * 1024);
  });
});
