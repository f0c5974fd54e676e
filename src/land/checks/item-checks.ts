// A change that touches only item files (`.abcd/items/*.md`: an item added, closed, its front
// matter edited) is tested by abcd itself: every item file it adds or changes must read as an
// item, as the local item source reads it. The project's own checks (a whole test run) say
// nothing about such a change, so they do not run: items land while main's check is red. The
// land is the same otherwise: fenced by the claim, one atomic push, refused on a bad file.
import { CheckFailed } from '../../core/refusals.js';
import { sanitizeLine } from '../../core/sanitize.js';
import type { Git } from '../../git/git.js';
import type { Repo } from '../../repo/repo.js';
import { runJailedChecks, type CheckSandboxChoice, type CheckVars } from './check-sandbox.js';
import type { CheckRun, CheckWatch, LandConfig } from './checks.js';

/** The check's name in results, refusals and status. */
export const ITEM_FILES_CHECK = 'abcd: item files';

const ITEM_FILE = /^\.abcd\/items\/[^/]+\.md$/;

/** The paths the change from `base` to `tip` touches when every one is an item file; undefined otherwise. */
export async function itemFilesOnly(git: Git, base: string, tip: string): Promise<string[] | undefined> {
  const paths = await git.diff.changedPathsBetween(base, tip);
  return paths.length > 0 && paths.every((p) => ITEM_FILE.test(p)) ? paths : undefined;
}

/** Refuses (a check failure, exit 3) when an item file among `paths` does not read as an item at `tip`. */
export async function checkItemFiles(git: Git, tip: string, paths: readonly string[], o: { now: () => number; watch?: CheckWatch }) {
  const t0 = o.now();
  const say = o.watch?.output;
  o.watch?.running?.(true);
  try {
    say?.(`\n[abcd] check: ${ITEM_FILES_CHECK} (${paths.length} changed; the project's checks do not run for items alone)\n`);
    // The item source (and the YAML it reads with) loads only for a change of item files.
    const { LocalItemSource } = await import('../../items/local-source.js');
    const listing = await new LocalItemSource(git).list(tip);
    const changed = new Set(paths);
    const bad = listing.refused.filter((r) => changed.has(r.path)).map((r) => sanitizeLine(r.refusal.message, 300));
    const run: CheckRun = { command: ITEM_FILES_CHECK, exitCode: bad.length ? 1 : 0, durationMs: o.now() - t0, attempt: 1 };
    say?.(`${bad.join('\n')}${bad.length ? '\n' : ''}[abcd] check exited ${run.exitCode}\n`);
    if (!bad.length) return [run];
    const output = bad.join('\n');
    throw new CheckFailed(
      `the check "${ITEM_FILES_CHECK}" exited 1: ${bad.length} item file(s) do not read as items; nothing landed. ${output}`,
      {
        check: ITEM_FILES_CHECK,
        exitCode: 1,
        timedOut: false,
        output,
        attempts: 1,
        runs: [run],
      },
    );
  } finally {
    o.watch?.running?.(false);
  }
}

/** The land's checks on the tested tree: abcd's own for a change of item files only, else the configured ones in their sandbox. */
export async function landChecks(
  repo: Repo,
  wt: Git,
  o: {
    config: LandConfig;
    jail: CheckSandboxChoice | undefined;
    vars: CheckVars;
    /** The tree the tested change starts from (main's tip, or a batch's base). */
    base: string;
    /** Who asked for the land: a lane's checks and the person's never share a tool cache. */
    caller: 'lane' | 'person';
    signal: AbortSignal;
    watch?: CheckWatch;
  },
): Promise<CheckRun[]> {
  const items = await itemFilesOnly(wt, o.base, o.vars.tip);
  const watch = o.watch ? { watch: o.watch } : {};
  if (items) return checkItemFiles(wt, o.vars.tip, items, { now: () => repo.deps.clock.now(), ...watch });
  if (!o.jail) return [];
  if (o.jail.warning) o.watch?.warning?.(o.jail.warning);
  return runJailedChecks(repo, wt, {
    config: o.config,
    sandbox: o.jail.sandbox,
    vars: o.vars,
    main: o.base,
    caller: o.caller,
    signal: o.signal,
    ...watch,
  });
}
