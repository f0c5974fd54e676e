// The tails a result record keeps of what a cycle printed: the agent's last lines, and the
// failing check's. The record is on the remote, where everyone who can fetch reads it, so a
// tail is scrubbed whole first (a key block loses its body with its header), then cut to a few
// printable lines within a byte budget that keeps the record under its size limit.
import { isRefusal } from '../../core/refusals.js';
import { sanitizeLine } from '../../core/sanitize.js';
import { scrubSecrets, TERMINAL_CODES } from '../../core/scrub.js';
import type { CycleRecord } from '../../records/lane-result.js';

/** Lines a tail keeps, each at most this long. */
export const MAX_TAIL_LINES = 12;
export const MAX_TAIL_LINE_CHARS = 200;
/** A tail's size as JSON: with two per cycle on the newest cycles only, the record stays small. */
export const MAX_TAIL_BYTES = 1536;
/** The newest cycles whose tails a record keeps; older cycles keep their reason only. */
export const MAX_TAILED_CYCLES = 8;

/** One line of agent output as a person may see it (a live line, a record): no codes, no token, one line. */
export function activityText(line: string, maxChars = MAX_TAIL_LINE_CHARS): string {
  return sanitizeLine(scrubSecrets(line.replace(TERMINAL_CODES, '')), maxChars).trim();
}

/** The last lines of `text` as a record keeps them; empty when nothing printable is left. */
export function recordTail(text: string): string[] {
  const lines = scrubSecrets(text)
    .replace(TERMINAL_CODES, '')
    .split('\n')
    .map((l) => sanitizeLine(l, MAX_TAIL_LINE_CHARS).trimEnd())
    .filter((l) => l.trim() !== '')
    .slice(-MAX_TAIL_LINES);
  while (lines.length && Buffer.byteLength(JSON.stringify(lines)) > MAX_TAIL_BYTES) lines.shift();
  return lines;
}

/** The agent's tail, for a cycle record. */
export function agentTail(output: string): { outputTail?: string[] } {
  const tail = recordTail(output);
  return tail.length ? { outputTail: tail } : {};
}

/** The failing check's tail, when the land refused on a check. */
export function checkTail(e: unknown): { checkTail?: string[] } {
  if (!isRefusal(e) || e.code !== 'check-failed') return {};
  const output = (e.data as { output?: unknown }).output;
  const tail = typeof output === 'string' ? recordTail(output) : [];
  return tail.length ? { checkTail: tail } : {};
}

/** Which check failed and how, or which files conflicted, when the land refused on one of them. */
export function failureDetail(e: unknown): Pick<CycleRecord, 'check' | 'conflictFiles'> {
  if (!isRefusal(e)) return {};
  const d = e.data as { check?: unknown; exitCode?: unknown; files?: unknown };
  if (e.code === 'check-failed' && typeof d.check === 'string')
    // The command goes to the remote's record: nothing in it that looks like a token.
    return { check: { name: sanitizeLine(scrubSecrets(d.check), 300), exitCode: typeof d.exitCode === 'number' ? d.exitCode : 1 } };
  if (e.code === 'conflict' && Array.isArray(d.files))
    return { conflictFiles: conflictFiles(d.files.filter((f): f is string => typeof f === 'string')) };
  return {};
}

/** Conflicting paths as a record keeps them: printable, bounded. */
export function conflictFiles(files: readonly string[]): string[] {
  return files.slice(0, 20).map((f) => sanitizeLine(scrubSecrets(f), 300));
}

/** The cycles, the newest few keeping their tails: the record stays small however long the run. */
export function keepNewestTails(cycles: CycleRecord[]): CycleRecord[] {
  const keepFrom = cycles.length - MAX_TAILED_CYCLES;
  return cycles.map((c, i) => {
    if (i >= keepFrom || (!c.outputTail && !c.checkTail && !c.network?.hosts)) return c;
    const { outputTail: _o, checkTail: _c, ...rest } = c;
    // The counts stay; the host names go with the tails.
    return c.network ? { ...rest, network: { allowed: c.network.allowed, refused: c.network.refused } } : rest;
  });
}
