// `abcd init --agents`: abcd's section of AGENTS.md, written or brought up to date in place, and a
// CLAUDE.md that imports AGENTS.md (Claude Code reads CLAUDE.md, not AGENTS.md).
import { readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { unlessMissing } from '../core/best-effort.js';

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

/** The file's text, or null when there is none. */
function readIfThere(path: string): Promise<string | null> {
  return readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
}

/** Writes the section into `<root>/AGENTS.md`; says whether the file changed. */
export async function writeAgentsSection(root: string, section: string): Promise<{ path: string; changed: boolean }> {
  const path = join(root, 'AGENTS.md');
  const existing = await readIfThere(path);
  const next = withAgentsSection(existing, section);
  if (next === existing) return { path: 'AGENTS.md', changed: false };
  await writeFile(path, next);
  return { path: 'AGENTS.md', changed: true };
}

/** Claude Code's import of AGENTS.md into CLAUDE.md: a line of its own. */
export const CLAUDE_IMPORT = '@AGENTS.md';

/** CLAUDE.md importing AGENTS.md: the person's file kept whole, the import line added when it lacks one. */
export function withClaudeImport(existing: string | null): string {
  if (existing === null || existing.trim() === '') return `${CLAUDE_IMPORT}\n`;
  if (existing.split('\n').some((l) => /^@(\.\/)?AGENTS\.md\s*$/.test(l.trim()))) return existing;
  return `${existing.replace(/\n*$/, '\n\n')}${CLAUDE_IMPORT}\n`;
}

/** Writes or completes `<root>/CLAUDE.md` so that it imports AGENTS.md; says whether the file changed. */
export async function writeClaudeImport(root: string): Promise<{ path: string; changed: boolean }> {
  const path = join(root, 'CLAUDE.md');
  // A CLAUDE.md that is AGENTS.md itself (a symlink) already says everything; an import would loop.
  const [claude, agents] = await Promise.all([
    realpath(path).catch(unlessMissing(null)),
    realpath(join(root, 'AGENTS.md')).catch(unlessMissing(null)),
  ]);
  if (claude !== null && claude === agents) return { path: 'CLAUDE.md', changed: false };
  const existing = await readIfThere(path);
  const next = withClaudeImport(existing);
  if (next === existing) return { path: 'CLAUDE.md', changed: false };
  await writeFile(path, next);
  return { path: 'CLAUDE.md', changed: true };
}
