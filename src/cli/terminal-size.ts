// A terminal's size in one place. A pty nobody sized (`script`, a container's console) reports
// 0 columns and 0 rows; drawing for that size shows nothing at all, so it counts as 80x24, the
// size such terminals open with.

export interface TerminalSize {
  columns: number;
  rows: number;
}

const UNSIZED: TerminalSize = { columns: 80, rows: 24 };

export function terminalSize(stream: { columns?: number; rows?: number }): TerminalSize {
  return { columns: stream.columns || UNSIZED.columns, rows: stream.rows || UNSIZED.rows };
}
