// What every runtime's transcript reader shares: a tool call's target on one line, a message's
// text indented, and fields of the agent's stream read only when they have the type they claim.
// The stream is the agent's: hostile, so every field is checked before it is shown.

// A tool call's target, one line.
const TARGET_CHARS = 160;

export type Obj = Record<string, unknown>;

/** What a tool call works on: the file it edits, the command it runs, the pattern it looks for. */
export function target(input: unknown): string {
  if (typeof input !== 'object' || input === null) return '';
  const i = input as Obj;
  const t = [i.file_path, i.command, i.path, i.pattern, i.url, i.query, i.description].find((v) => typeof v === 'string' && v.trim());
  return typeof t === 'string' ? ` ${oneLine(t)}` : '';
}

export function blocks(message: unknown): Obj[] {
  const content = (message as { content?: unknown } | null | undefined)?.content;
  return Array.isArray(content) ? content.filter((b): b is Obj => typeof b === 'object' && b !== null) : [];
}

export function textLines(text: string): string[] {
  return text
    .trim()
    .split('\n')
    .map((l) => `  ${l}`.trimEnd());
}

export function oneLine(t: string): string {
  const s = t.replace(/\s+/g, ' ').trim();
  return s.length > TARGET_CHARS ? `${s.slice(0, TARGET_CHARS - 1)}…` : s;
}

export function firstLine(t: string): string {
  return oneLine(t.split('\n').find((l) => l.trim()) ?? '');
}

export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}
