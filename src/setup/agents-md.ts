// `abcd init --agents`: abcd's section of AGENTS.md, written or brought up to date in place.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Marks the section `abcd init --agents` owns in AGENTS.md; the rest of the file is the person's. */
export const AGENTS_BEGIN = '<!-- abcd:prime begin (abcd init --agents rewrites this section) -->';
export const AGENTS_END = '<!-- abcd:prime end -->';

/** AGENTS.md with abcd's section written or replaced between its markers, the rest kept. */
export function withAgentsSection(existing: string | null, section: string): string {
  const block = `${AGENTS_BEGIN}\n${section}\n${AGENTS_END}\n`;
  if (existing === null || existing.trim() === '') return `# AGENTS.md\n\n${block}`;
  const start = existing.indexOf(AGENTS_BEGIN);
  const end = existing.indexOf(AGENTS_END);
  if (start >= 0 && end > start) return existing.slice(0, start) + block + existing.slice(end + AGENTS_END.length).replace(/^\n/, '');
  return `${existing.replace(/\n*$/, '\n\n')}${block}`;
}

/** Writes the section into `<root>/AGENTS.md`; says whether the file changed. */
export async function writeAgentsSection(root: string, section: string): Promise<{ path: string; changed: boolean }> {
  const path = join(root, 'AGENTS.md');
  const existing = await readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
  const next = withAgentsSection(existing, section);
  if (next === existing) return { path: 'AGENTS.md', changed: false };
  await writeFile(path, next);
  return { path: 'AGENTS.md', changed: true };
}
