// The team's own GitHub workflows that run on every push. Each record abcd writes (a reserve, a
// renewal, a landing's done mark) is a push to a branch under abcd/, so such a workflow runs
// many times per lane run. `abcd init` names them and the filter they need; with --fix it adds
// the filter by inserting text, the rest of each file byte for byte as it was, and keeps an
// edit only if the file then parses to the same workflow plus the filter. A file it cannot edit
// that way is named and left alone.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { unlessMissing } from '../core/best-effort.js';
import { GENERATED_MARKER } from './github-workflow.js';

export const WORKFLOWS_DIR = '.github/workflows';
/** The filter line a push trigger needs, as the person would write it. */
export const RECORD_FILTER = "branches-ignore: ['abcd/**']";
const RECORD_PATTERN = 'abcd/**';
// A push trigger with any of these runs only for the refs they name (GitHub's rule).
const REF_FILTERS = ['branches', 'branches-ignore', 'tags', 'tags-ignore'];

export interface PushWorkflow {
  path: string;
  /** needs-filter: found; fixed: --fix added the filter; cannot-fix: --fix left it alone (`why`). */
  state: 'needs-filter' | 'fixed' | 'cannot-fix';
  why?: string;
}

/** Every workflow under .github/workflows that a push to abcd/ would start; with `fix`, filtered. */
export async function findPushWorkflows(root: string, fix: boolean): Promise<PushWorkflow[]> {
  const dir = join(root, WORKFLOWS_DIR);
  const names = await readdir(dir).catch(unlessMissing([] as string[]));
  const { parseDocument } = await import('yaml');
  const out: PushWorkflow[] = [];
  for (const name of names.filter((n) => /\.ya?ml$/.test(n)).sort()) {
    const path = `${WORKFLOWS_DIR}/${name}`;
    const text = await readFile(join(dir, name), 'utf8').catch(notAFile);
    if (text === null || text.startsWith(GENERATED_MARKER)) continue;
    const doc = parseDocument(text, { prettyErrors: false });
    // A file GitHub itself could not read runs nothing; its own errors are GitHub's to report.
    if (doc.errors.length || !runsOnEveryPush(doc.toJS())) continue;
    if (!fix) {
      out.push({ path, state: 'needs-filter' });
      continue;
    }
    const edited = addRecordFilter(text, parseDocument);
    if (typeof edited !== 'string') {
      out.push({ path, state: 'cannot-fix', why: edited.why });
      continue;
    }
    await writeFile(join(dir, name), edited);
    out.push({ path, state: 'fixed' });
  }
  return out;
}

/** What to tell the person about the workflows found: the filter, each file, and --fix. */
export function pushWorkflowAdvice(found: readonly PushWorkflow[]): string[] {
  const open = found.filter((w) => w.state !== 'fixed');
  if (!open.length) return [];
  const lines = [
    "these workflows run on every push, so each record abcd pushes under abcd/ starts them; add under each one's push trigger",
    `    ${RECORD_FILTER}`,
  ];
  for (const w of open) lines.push(`  ${w.path}${w.why ? ` (abcd init --fix left it alone: ${w.why})` : ''}`);
  if (open.some((w) => w.state === 'needs-filter')) lines.push('abcd init --fix adds it, keeping the rest of each file as it is');
  return lines;
}

/** True when the workflow's push trigger runs for every branch: no branch or tag filter. */
export function runsOnEveryPush(workflow: unknown): boolean {
  const on = workflow && typeof workflow === 'object' ? (workflow as Record<string, unknown>).on : undefined;
  if (on === 'push') return true;
  if (Array.isArray(on)) return on.includes('push');
  if (!on || typeof on !== 'object' || !('push' in on)) return false;
  const push = (on as Record<string, unknown>).push;
  if (push === null || push === undefined) return true;
  if (typeof push !== 'object') return false;
  return !REF_FILTERS.some((k) => k in push);
}

interface Node {
  range?: [number, number, number] | null;
  items?: Array<Pair | Node>;
  flow?: boolean;
  value?: unknown;
}
interface Pair {
  key: Node;
  value: Node | null;
}
type ParseDocument = (text: string, o: { prettyErrors: boolean }) => { errors: unknown[]; contents: unknown; toJS(): unknown };

/** The text with the filter added, or why it cannot be added safely. */
export function addRecordFilter(text: string, parse: ParseDocument): string | { why: string } {
  const doc = parse(text, { prettyErrors: false });
  if (doc.errors.length) return { why: 'it is not valid YAML' };
  const edited = insertFilter(text, doc.contents as Node);
  if (typeof edited !== 'string') return edited;
  const after = parse(edited, { prettyErrors: false });
  if (after.errors.length || !sameWorkflowPlusFilter(doc.toJS(), after.toJS())) {
    return { why: 'the edited file would not read back as the same workflow' };
  }
  return edited;
}

const isPair = (n: Pair | Node): n is Pair => 'key' in n;

function insertFilter(text: string, root: Node): string | { why: string } {
  const onPair = root?.items?.filter(isPair).find((p) => p.key?.value === 'on');
  const on = onPair?.value;
  if (!onPair?.key.range || !on?.range) return { why: 'its "on:" is not a plain key of the file' };
  const unit = indentUnit(text);
  const inner = ' '.repeat(columnOf(text, onPair.key.range[0]) + unit);
  const pushWithFilter = `\n${inner}push:\n${inner}${' '.repeat(unit)}${RECORD_FILTER}`;
  if (on.value === 'push' && !on.items) return replaceValue(text, on.range, pushWithFilter);
  if (!on.items) return { why: 'its "on:" is neither an event, a list of events nor a map of them' };
  if (!on.items.some(isPair)) {
    // A list of event names: the same events as a map, push with the filter.
    const events = on.items.map((i) => (i as Node).value);
    if (!events.every((e) => typeof e === 'string' && /^[a-z_]+$/.test(e))) return { why: 'its list of events is not plain names' };
    if (text.slice(on.range[0], on.range[1]).includes('#')) return { why: 'its list of events has comments inside' };
    const lines = (events as string[]).map((e) => (e === 'push' ? pushWithFilter : `\n${inner}${e}:`));
    return replaceValue(text, on.range, lines.join(''));
  }
  if (on.flow) return { why: 'its "on:" is written inline ({...})' };
  const pushPair = on.items.filter(isPair).find((p) => p.key?.value === 'push');
  if (!pushPair?.key.range) return { why: 'its push trigger is not a plain key' };
  const pushColumn = columnOf(text, pushPair.key.range[0]);
  const value = pushPair.value;
  if (!value?.items) {
    // `push:` alone, `push: ~` or `push: null`, perhaps with a comment: the filter goes on the next line.
    const lineEnd = endOfLine(text, pushPair.key.range[0]);
    const rest = /^\s*:\s*(?:~|null)?\s*(#.*)?$/.exec(text.slice(pushPair.key.range[1], lineEnd));
    if (!rest) return { why: 'its push trigger has a value abcd does not recognise' };
    const comment = rest[1] ? ` ${rest[1]}` : '';
    const line = `push:${comment}\n${' '.repeat(pushColumn + unit)}${RECORD_FILTER}`;
    return text.slice(0, pushPair.key.range[0]) + line + text.slice(lineEnd);
  }
  if (value.flow) return { why: 'its push trigger is written inline ({...})' };
  const first = value.items.find(isPair);
  if (!first?.key.range) return { why: 'its push trigger has no plain keys' };
  // Right under `push:`, at its keys' indentation, before any comment above its first key.
  const at = Math.min(endOfLine(text, pushPair.key.range[0]) + 1, startOfLine(text, first.key.range[0]));
  return text.slice(0, at) + `${' '.repeat(columnOf(text, first.key.range[0]))}${RECORD_FILTER}\n` + text.slice(at);
}

/** Replaces a value's own text; a comment after it stays at the end of the last line written. */
function replaceValue(text: string, range: [number, number, number], by: string): string {
  let end = range[1];
  while (end > range[0] && /\s/.test(text[end - 1]!)) end--;
  return text.slice(0, range[0]).replace(/\s+$/, '') + by + text.slice(end);
}

function columnOf(text: string, offset: number): number {
  return offset - startOfLine(text, offset);
}
function startOfLine(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}
function endOfLine(text: string, offset: number): number {
  const nl = text.indexOf('\n', offset);
  return nl < 0 ? text.length : nl;
}

/** The file's indentation step: the first indented key's column, else 2. */
function indentUnit(text: string): number {
  const m = /^( +)[A-Za-z_"'-]/m.exec(text);
  return m ? Math.min(m[1]!.length, 8) : 2;
}

/** The edit reads back as the same workflow with the filter on push, and nothing else changed. */
function sameWorkflowPlusFilter(before: unknown, after: unknown): boolean {
  const b = before as Record<string, unknown>;
  const on = b.on;
  const expected: Record<string, unknown> =
    on === 'push'
      ? { push: null }
      : Array.isArray(on)
        ? Object.fromEntries(on.map((e: string) => [e, null]))
        : { ...(on as Record<string, unknown>) };
  expected.push = { ...((expected.push ?? {}) as Record<string, unknown>), 'branches-ignore': [RECORD_PATTERN] };
  return JSON.stringify(canonical({ ...b, on: expected })) === JSON.stringify(canonical(after));
}

/** Key order does not matter to a workflow: sorted, so the comparison sees only content. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(o)
        .sort()
        .map((k) => [k, canonical(o[k])]),
    );
  }
  return v;
}

// A name gone since the listing, or a folder named like a workflow: GitHub runs neither.
function notAFile(e: unknown): null {
  if (e instanceof Error && 'code' in e && e.code === 'EISDIR') return null;
  return unlessMissing(null)(e);
}
