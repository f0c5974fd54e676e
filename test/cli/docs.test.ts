// The documentation a clone carries must stand on its own: a README short enough to read in five
// minutes that links every page under docs/, relative links that lead to files that exist, and no
// tracked file pointing at a folder beside the repository that a clone does not have.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';

afterAll(cleanupTemp);

const ROOT = resolve(import.meta.dirname, '../..');
// A README past this is no longer a five-minute read: the rest belongs in docs/.
const MAX_README_LINES = 250;
// Built from parts so this file does not itself contain what it looks for.
const OUTSIDE = ['..', 'shared'].join('/');

function readmeLines(root: string): number {
  return readFileSync(join(root, 'README.md'), 'utf8').replace(/\n$/, '').split('\n').length;
}

function docPages(root: string): string[] {
  return readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`)
    .sort();
}

/** Markdown without its fenced code blocks, where a bracket is no link and a hash is no heading. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

/** The relative link targets of a Markdown file as written (`docs/a.md#x`, `#here`), outside code blocks. */
function linkTargets(text: string): string[] {
  const targets = [...prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => decodeURI(m[1]!));
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/** The files a Markdown file links to, without their #anchors. */
function relativeLinks(text: string): string[] {
  return linkTargets(text)
    .filter((t) => !t.startsWith('#'))
    .map((t) => t.replace(/#.*$/, ''));
}

/** The anchors a page's headings get where Markdown is rendered: lowercase, punctuation dropped, spaces as dashes. */
function headingAnchors(text: string): Set<string> {
  const headings = [...prose(text).matchAll(/^#{1,6}\s+(.*)$/gm)].map((m) => m[1]!.trim());
  return new Set(
    headings.map((h) =>
      h
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}

/**
 * `file: target` for every relative link in the README, CONTRIBUTING and docs/ that leads nowhere:
 * a file that does not exist, or an anchor no heading of the Markdown page it names gives.
 */
function brokenLinks(root: string): string[] {
  const files = ['README.md', 'CONTRIBUTING.md', ...docPages(root)];
  return files.flatMap((f) =>
    linkTargets(readFileSync(join(root, f), 'utf8'))
      .filter((t) => {
        const [path, anchor] = t.split('#', 2) as [string, string | undefined];
        const target = path === '' ? join(root, f) : resolve(root, dirname(f), path);
        if (!existsSync(target)) return true;
        if (anchor === undefined || !target.endsWith('.md')) return false;
        return !headingAnchors(readFileSync(target, 'utf8')).has(anchor);
      })
      .map((t) => `${f}: ${t}`),
  );
}

/** Pages under docs/ the README does not link to. */
function unlinkedPages(root: string): string[] {
  const linked = new Set(relativeLinks(readFileSync(join(root, 'README.md'), 'utf8')).map((t) => t.replace(/^\.\//, '')));
  return docPages(root).filter((p) => !linked.has(p));
}

/** `path:line` of every tracked file that mentions the folder beside the repository. */
function outsideMentions(root: string): string[] {
  try {
    return execFileSync('git', ['-C', root, 'grep', '-n', '-I', '-F', '-e', OUTSIDE], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(':').slice(0, 2).join(':'));
  } catch (e) {
    // git grep exits 1 when nothing matched; anything else is a real failure.
    if ((e as { status?: number }).status === 1) return [];
    throw e;
  }
}

describe('the documentation in the repository', () => {
  it(`README.md is under ${MAX_README_LINES} lines`, () => {
    expect(readmeLines(ROOT)).toBeLessThan(MAX_README_LINES);
  });

  it('README.md links every page under docs/', () => {
    expect(docPages(ROOT).length).toBeGreaterThan(0);
    expect(unlinkedPages(ROOT)).toEqual([]);
  });

  it('every relative link in README.md, CONTRIBUTING.md and docs/ leads to a file, and a heading, that exists', () => {
    expect(brokenLinks(ROOT)).toEqual([]);
  });

  it('no tracked file points outside the repository', () => {
    expect(outsideMentions(ROOT)).toEqual([]);
  });
});

describe('the documentation checks themselves', () => {
  it('find a long README, an unlinked page, a missing file or anchor, and a tracked mention outside the repository', async () => {
    const root = await tempDir('docs-check');
    mkdirSync(join(root, 'docs'));
    writeFileSync(
      join(root, 'README.md'),
      ['[a](docs/a.md) [gone](docs/gone.md#x) [web](https://example.com)', ...Array(300).fill('x')].join('\n'),
    );
    writeFileSync(join(root, 'CONTRIBUTING.md'), '```\n[in code](nowhere.md)\n```\n[ok](README.md)\n');
    writeFileSync(
      join(root, 'docs/a.md'),
      `## Here: \`it\`, too\n[up](../README.md) [anchor](#here-it-too) [lost](#gone) see ${OUTSIDE}/X.md\n`,
    );
    writeFileSync(join(root, 'docs/b.md'), '[missing](c.md) [there](a.md#here-it-too) [not there](a.md#nowhere)\n');
    execFileSync('git', ['-C', root, 'init', '-q']);
    execFileSync('git', ['-C', root, 'add', '.']);

    expect(readmeLines(root)).toBe(301);
    expect(unlinkedPages(root)).toEqual(['docs/b.md']);
    expect(brokenLinks(root)).toEqual(['README.md: docs/gone.md#x', 'docs/a.md: #gone', 'docs/b.md: c.md', 'docs/b.md: a.md#nowhere']);
    expect(outsideMentions(root)).toEqual(['docs/a.md:2']);
  });
});
