// One item file: `.abcd/items/<slug>.md`, YAML front matter between `---` lines, free text
// below. Parse and render live side by side so a rewrite (the done marking) cannot drift
// from what the reader accepts. The file is written by whoever can push to main: hostile
// text, so every failure is a named ItemInvalid and never a crash.
import { parseDocument } from 'yaml';
import { formatItem, parseItem, type ItemKey } from '../records/item.js';
import { ItemInvalid, isRefusal } from '../core/refusals.js';
import { sanitizeLine } from '../core/sanitize.js';
import { PRIORITIES, type Priority } from '../records/queue.js';
import type { ItemDoc, ItemStatus } from './source.js';
import { ITEM_SUFFIX, ITEMS_DIR, itemPath } from './item-path.js';

export { ITEMS_DIR, itemPath };

const STATUSES: readonly ItemStatus[] = ['ready', 'done'];
// Front matter: `---` on the first line, then everything up to the next `---` line.
const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)^---[ \t]*(?:\r?\n|$)/m;

/** The key a file name stands for, or an ItemInvalid naming why the name is no item. */
export function keyOfFileName(name: string): ItemKey {
  const path = `${ITEMS_DIR}/${name}`;
  const slug = name.endsWith(ITEM_SUFFIX) ? name.slice(0, -ITEM_SUFFIX.length) : '';
  if (slug !== '' && !slug.includes(':')) {
    try {
      return parseItem(slug);
    } catch {
      // a single parse: the file name's slug, refused below in this file's words
    }
  }
  throw new ItemInvalid(
    `${sanitizeLine(path, 200)}: "${sanitizeLine(name, 100)}" is not an item name; name item files <slug>.md with a slug of ` +
      'lowercase letters, digits, ".", "_", "-" starting with a letter or digit (e.g. fix-login.md).',
    { path, reason: 'name' },
  );
}

function refuse(path: string, key: ItemKey, reason: string, what: string): ItemInvalid {
  return new ItemInvalid(`${path}: ${what}; fix the file on main.`, { path, key: formatItem(key), reason });
}

/** Parses one item file. Dependencies are checked against the other items later (item-graph.ts). */
export function parseItemFile(path: string, key: ItemKey, text: string): ItemDoc {
  const m = FRONT_MATTER.exec(text);
  if (!m || m.index !== 0) {
    throw refuse(path, key, 'front-matter', 'it does not start with front matter between "---" lines (title, status, optional depends_on)');
  }
  const fm = readFrontMatter(path, key, m[1]!);
  if (typeof fm !== 'object' || Array.isArray(fm)) throw refuse(path, key, 'yaml', 'its front matter is not a set of "key: value" lines');
  // abcd reads title, status, depends_on and priority. Any other key (`owner`, a team's own) is
  // the team's: accepted and left in the file, so a file written for another tool still reads.
  const fields = fm as Record<string, unknown>;
  const title = fields.title;
  if (typeof title !== 'string' || title.trim() === '')
    throw refuse(path, key, 'title', 'it has no title (write "title: <text>" in the front matter)');
  const status = fields.status;
  if (typeof status !== 'string' || !STATUSES.includes(status as ItemStatus)) {
    throw refuse(
      path,
      key,
      'status',
      `its status ${sanitizeLine(JSON.stringify(status ?? null), 60)} is not one of ${STATUSES.join(', ')}`,
    );
  }
  const priority = priorityOf(fields.priority);
  return {
    key,
    title: title.trim(),
    status: status as ItemStatus,
    ...(priority !== 'normal' ? { priority } : {}),
    dependsOn: parseDependsOn(path, key, fields.depends_on),
    body: text.slice(m[0].length),
    path,
  };
}

/**
 * `priority: high|normal|low` (any case) orders the drain and the item's place in the land
 * queue. Any other value is the team's own (a number another tool reads, say): kept in the
 * file and read as normal, so the item still reads.
 */
function priorityOf(value: unknown): Priority {
  const v = typeof value === 'string' ? value.trim().toLowerCase() : '';
  return PRIORITIES.includes(v as Priority) ? (v as Priority) : 'normal';
}

/**
 * A new item file: the front matter abcd reads, then the body. Values are written as JSON
 * strings (valid YAML double-quoted scalars), so no title can end the front matter or add a key.
 */
export function renderItemFile(o: { title: string; dependsOn: readonly string[]; body: string }): string {
  const deps = o.dependsOn.length ? `depends_on: [${o.dependsOn.map((d) => JSON.stringify(d)).join(', ')}]\n` : '';
  const body = o.body === '' || o.body.endsWith('\n') ? o.body : `${o.body}\n`;
  return `---\ntitle: ${JSON.stringify(o.title)}\nstatus: ready\n${deps}---\n${body === '' ? '' : `\n${body}`}`;
}

// Front matter is a few short lines; past these the text is a typo or an attack (a billion-laughs
// alias bomb, a nesting deep enough to exhaust the stack), refused for this file alone.
const MAX_ALIASES = 20;
const MAX_DEPTH = 8;
const MAX_FRONT_MATTER_CHARS = 16 * 1024;

/**
 * The front matter as plain values, or an ItemInvalid for this file: every way the YAML
 * library can fail (syntax, alias counts, unknown tags, depth, its own exceptions) is caught
 * here, so one hostile file never stops the listing of the others.
 */
function readFrontMatter(path: string, key: ItemKey, text: string): unknown {
  const notYaml = (why: string) => refuse(path, key, 'yaml', `its front matter is not plain YAML (${sanitizeLine(why, 200)})`);
  if (text.length > MAX_FRONT_MATTER_CHARS) throw notYaml(`${text.length} characters, over ${MAX_FRONT_MATTER_CHARS}`);
  let value: unknown;
  try {
    const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
    const problem = doc.errors[0] ?? doc.warnings[0];
    if (problem) throw notYaml(problem.message.split('\n')[0]!);
    value = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (e) {
    if (isRefusal(e)) throw e;
    throw notYaml(e instanceof Error ? e.message.split('\n')[0]! : String(e));
  }
  if (depthOf(value) > MAX_DEPTH) throw notYaml(`nested deeper than ${MAX_DEPTH} levels`);
  return value ?? {};
}

function depthOf(value: unknown, depth = 0): number {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return depth;
  let deepest = depth + 1;
  for (const v of Object.values(value)) deepest = Math.max(deepest, depthOf(v, depth + 1));
  return deepest;
}

function parseDependsOn(path: string, key: ItemKey, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.some((d) => typeof d !== 'string')) {
    throw refuse(path, key, 'depends-on', 'depends_on is not a list of item slugs (write depends_on: [setup, fix-login])');
  }
  const keys: string[] = [];
  for (const d of list as string[]) {
    let dep: ItemKey;
    try {
      dep = parseItem(d);
    } catch (e) {
      if (!isRefusal(e)) throw e;
      throw refuse(path, key, 'depends-on', `depends_on names "${sanitizeLine(d, 60)}", which is not an item slug`);
    }
    if (dep.source !== key.source || dep.kind !== key.kind) {
      throw refuse(
        path,
        key,
        'depends-on',
        `depends_on names ${formatItem(dep)}, an item this source cannot see; name items under ${ITEMS_DIR}`,
      );
    }
    if (!keys.includes(formatItem(dep))) keys.push(formatItem(dep));
  }
  return keys;
}

/**
 * The same file with `status: done`, every other byte as it was; null when its status is
 * not `ready` (already done, or no such line to rewrite safely).
 */
export function markDone(text: string): string | null {
  const m = FRONT_MATTER.exec(text);
  if (!m || m.index !== 0) return null;
  const start = m[0].indexOf(m[1]!);
  const fm = m[1]!;
  const line = /^(status[ \t]*:[ \t]*)(["']?)ready\2([ \t]*(?:#[^\r\n]*)?\r?)$/m.exec(fm);
  if (!line) return null;
  const at = start + line.index;
  return text.slice(0, at) + `${line[1]}${line[2]}done${line[2]}${line[3]}` + text.slice(at + line[0].length);
}
