// The board of what each lane is doing: a display listening to it that throws (a closed
// terminal, a fault of its own) never stops the board, nor the record's phase changes.
import { describe, expect, it } from 'vitest';
import { LaneBoard, type LaneState } from '../../src/lanes/run/progress.js';

describe('the lanes board', () => {
  it('a display that throws on every change leaves the board and the phase changes going', () => {
    let t = 1;
    const phases: string[] = [];
    let shown = 0;
    const board = new LaneBoard(() => t++, {
      phaseChanged: (s: LaneState) => phases.push(`${s.item} ${s.phase}`),
      changed: () => {
        shown++;
        throw new Error('the terminal went away');
      },
    });
    board.phase('alpha', 'agent');
    board.activity('alpha', { kind: 'tool', text: 'Read a.txt' });
    board.usage('alpha', { tokens: 10, costUsd: 0.5 });
    board.phase('alpha', 'checks');
    expect(board.get('alpha')).toMatchObject({ phase: 'checks', activity: { text: 'Read a.txt' }, usage: { tokens: 10, costUsd: 0.5 } });
    board.end('alpha');
    expect(board.lanes()).toEqual([]);
    expect(phases).toEqual(['alpha agent', 'alpha checks']);
    expect(shown).toBe(5);
  });
});
