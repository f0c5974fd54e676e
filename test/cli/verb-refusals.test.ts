// Help that tells the truth: each verb's --help lists exactly the refusal codes it can give,
// where "can give" is read from the source (test/harness/refusals-reached.ts, ADR 0053): a
// refusal class constructed by anything the verb's command file reaches. A verb that can give
// a code its help does not list fails here, and so does a help listing a code nothing builds.
import { writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands.js';
import { codesOf, EVERY_VERB } from '../../src/cli/refusal-codes.js';
import * as refusals from '../../src/core/refusals.js';
import type { RefusalCode } from '../../src/core/refusal-table.js';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { refusalsReached, type Caught } from '../harness/refusals-reached.js';

const SRC = resolve(import.meta.dirname, '../../src');

/** Calls whose refusals the caller catches and answers otherwise: the one place the analysis is told. */
const CAUGHT: readonly Caught[] = [
  {
    from: 'lanes/cycle/cycle-landing.ts#landItem',
    to: 'land/land.ts#land',
    because:
      "a cycle's land refusal is written into the cycle's record (or earns the agent another turn) and the lane goes on; the verb answers ok",
  },
  {
    from: 'lanes/cycle/land-retry.ts#landAndResume',
    to: 'lanes/cycle/keep-work.ts#keepWork',
    because: "a refused push of the cycle's work branch is written into the cycle's record; the verb answers ok",
  },
  {
    from: 'lanes/cycle/land-retry.ts#workAfterTurn',
    to: 'lanes/cycle/keep-work.ts#keepWork',
    because: "a refused push of the resolved work is written into the cycle's record; the verb answers ok",
  },
  {
    from: 'cli/commands/completion.ts#completion',
    to: 'git/git.ts#*',
    because: 'completion --items only calls Git.run, which never throws, and answers no slugs when git fails',
  },
];

/** Each refusal class's code, from the classes themselves. */
const codeOfClass = new Map<string, RefusalCode>(
  Object.entries(refusals)
    .filter(([, v]) => typeof v === 'function' && v.prototype instanceof refusals.Refusal)
    .map(([name, C]) => [
      name,
      new (C as new (m: string, d: object) => refusals.Refusal)('x', { outcome: 'unchanged', ref: 'r' }).code as RefusalCode,
    ]),
);

const verbOf = (c: (typeof commands)[number]) => String(c.command).split(' ')[0]!;

/** The codes a verb can give, and for each the chain of declarations that builds it. */
function canGive(verb: string): Map<RefusalCode, string> {
  const r = refusalsReached(resolve(SRC, 'cli/commands', `${verb}.ts`), SRC, CAUGHT);
  expect(r.unfollowed, `${verb}: import() of a computed path, which the analysis cannot follow`).toEqual([]);
  const out = new Map<RefusalCode, string>(EVERY_VERB.map((c) => [c, 'any verb']));
  for (const [name, chain] of r.why) {
    const code = codeOfClass.get(name);
    if (code) out.set(code, chain.join(' > '));
  }
  return out;
}

describe('each verb lists the refusal codes it can give', () => {
  afterAll(cleanupTemp);

  it.each(commands.map((c) => [verbOf(c), c] as const))('abcd %s --help lists exactly what its code can construct', (verb, c) => {
    const can = canGive(verb);
    const listed = new Set(codesOf(c.refusals ?? []));
    const unlisted = [...can].filter(([code]) => !listed.has(code)).map(([code, chain]) => `${code}: ${chain}`);
    expect(unlisted, `${verb} can give codes its --help does not list (add them to its refusals:)`).toEqual([]);
    const unbuilt = [...listed].filter((code) => !can.has(code));
    expect(unbuilt, `${verb}'s --help lists codes nothing it reaches constructs`).toEqual([]);
  });

  it('bites: a construction reached through a name counts; one behind an unused name, a type-only import or a caught call does not', async () => {
    // A small source tree whose imports of the refusal classes are the real ones.
    const dir = await tempDir('reach');
    const classes = relative(dir, resolve(SRC, 'core/refusals.js'));
    await writeFile(
      join(dir, 'verb.ts'),
      [
        "import { take } from './claim.js';",
        "import type { Shape } from './shapes.js';",
        "import { landIt } from './landing.js';",
        'export const verb = { run: (s: Shape) => { take(s); try { landIt(); } catch { return 1; } return 0; } };',
      ].join('\n'),
    );
    await writeFile(
      join(dir, 'claim.ts'),
      [
        `import { Held as Taken, Fenced } from '${classes}';`,
        "export function take(x: unknown) { if (x) throw new Taken('m', { item: 'a', ref: 'r' }); return import('./late.js'); }",
        "export function unused() { throw new Fenced('m', { item: 'a', ref: 'r' }); }",
      ].join('\n'),
    );
    await writeFile(
      join(dir, 'late.ts'),
      `import { GitFailed } from '${classes}';\nexport const late = () => new GitFailed('m', { args: [], exitCode: 1, stderr: '', dir: '', timedOut: false });`,
    );
    await writeFile(
      join(dir, 'shapes.ts'),
      `import { Conflict } from '${classes}';\nexport type Shape = unknown;\nexport const c = () => new Conflict('m');`,
    );
    await writeFile(
      join(dir, 'landing.ts'),
      `import { CheckFailed } from '${classes}';\nexport function landIt() { throw new CheckFailed('m', { check: 'x', exitCode: 1, timedOut: false, output: '' }); }`,
    );
    const reached = (caught: Caught[]) => [...refusalsReached(join(dir, 'verb.ts'), dir, caught).why.keys()].sort();
    expect(reached([])).toEqual(['CheckFailed', 'GitFailed', 'Held']);
    expect(reached([{ from: 'verb.ts#verb', to: 'landing.ts#landIt', because: 'caught' }])).toEqual(['GitFailed', 'Held']);
    expect(refusalsReached(join(dir, 'verb.ts'), dir).why.get('Held')).toEqual(['verb.ts#*', 'verb.ts#verb', 'claim.ts#take']);
  });

  it('finds what help used to leave out: branch-refused for push, claim-ended for land', () => {
    expect(canGive('push').get('branch-refused')).toMatch(/^cli\/commands\/push\.ts#\* > .*claims\/(write|work-branch)\.ts#/);
    // Its own claim ended (claims/holding.ts), or a batch landed it (land/landed-proof.ts says so).
    expect(canGive('land').get('claim-ended')).toMatch(/^cli\/commands\/land\.ts#\* > .*(claims\/holding|land\/landed-proof)\.ts#/);
    // The caught call is what keeps land's own codes off build: without it they would show.
    expect([...refusalsReached(resolve(SRC, 'cli/commands/build.ts'), SRC).why.keys()]).toContain('CheckFailed');
    expect(canGive('build').has('check-failed')).toBe(false);
  });
});
