// Which record tips this exact build has decoded before: a tip fixes its blob, and a blob that
// decoded once as a kind decodes the same way again under the same schemas, so a read of a tip
// kept here parses its JSON and runs no schema at all. Kept only where the schema's answer was
// exactly the blob's own JSON (nothing stripped or reordered), so the two reads answer alike.
// The file names the build that checked: any other build (another version, another schema)
// ignores it and checks every record again.
import { readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { unlessSystemError } from '../core/best-effort.js';
import { tempTag } from '../core/temp-name.js';
import { KNOWN_VERSION, type KnownKind } from './envelope.js';

/** Where the checked tips are kept, and the build whose schemas checked them. */
export interface CheckedTipsFile {
  readonly path: string;
  readonly build: string;
}

const TITLE = 'abcd-record-checked 1';
const ENTRY = /^([0-9a-f]{40}|[0-9a-f]{64}) ([a-z-]{1,32})$/;

/** The tips kept at `file` by its build; an absent, foreign, damaged or other build's file keeps none. */
export function loadChecked(file: CheckedTipsFile): Map<string, KnownKind> {
  let text: string;
  try {
    text = readFileSync(file.path, 'latin1');
  } catch (e) {
    return unlessSystemError(new Map<string, KnownKind>())(e);
  }
  const lines = text.split('\n');
  const out = new Map<string, KnownKind>();
  if (lines[0] !== `${TITLE} ${file.build}` || lines.at(-1) !== '') return out;
  for (const line of lines.slice(1, -1)) {
    const m = ENTRY.exec(line);
    const kind = m?.[2];
    // One damaged line and the file is not trusted at all: every record is checked again.
    if (!m || !kind || !Object.hasOwn(KNOWN_VERSION, kind)) return new Map();
    out.set(m[1] ?? '', kind as KnownKind);
  }
  return out;
}

/** Keeps exactly `tips` at `file`, replacing it whole (a reader sees the old file or the new one). */
export async function saveChecked(file: CheckedTipsFile, tips: ReadonlyMap<string, KnownKind>): Promise<void> {
  const body = [`${TITLE} ${file.build}`, ...[...tips].map(([tip, kind]) => `${tip} ${kind}`), ''].join('\n');
  await mkdir(dirname(file.path), { recursive: true });
  const tmp = join(dirname(file.path), `.record-checked.${tempTag()}.tmp`);
  try {
    await writeFile(tmp, body, 'latin1');
    await rename(tmp, file.path);
  } finally {
    await rm(tmp, { force: true });
  }
}
