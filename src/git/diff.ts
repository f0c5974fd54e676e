// What changed between two trees: changed paths, a patch, the raw tree diff, and a grep over a
// commit's files.
import { isObjectId } from './object-id.js';
import type { Objects } from './objects.js';
import type { CallOptions, GitRunner } from './runner.js';
import { changedPathsOfTrees } from './tree-diff.js';

export class Diff {
  constructor(
    private readonly r: GitRunner,
    private readonly objects: Objects,
  ) {}

  /**
   * The paths that differ from commit `from` to commit `to`, as changedPaths lists them without
   * renames, read from the two trees (loose files, else the object reader: tree-diff.ts); git's diff where
   * the trees are not plain. A submodule's commit that moved is always a changed path here,
   * whatever `ignore` setting the clone or the tree's .gitmodules has for it.
   */
  async changedPathsBetween(from: string, to: string, o: CallOptions = {}): Promise<string[]> {
    if (isObjectId(from) && isObjectId(to) && !o.env) {
      const read = await changedPathsOfTrees((specs) => this.objects.readObjects(specs), `${from}^{tree}`, `${to}^{tree}`);
      if (read) return read;
    }
    return this.changedPaths(from, to, o);
  }

  /**
   * The paths that differ from `from` to `to`, renames as a delete and an add (`renames`: the
   * new name only); `mergeBase`: from where the two forked (`from...to`). GitFailed when git fails.
   */
  async changedPaths(from: string, to: string, o: CallOptions & { renames?: boolean; mergeBase?: boolean } = {}): Promise<string[]> {
    const range = o.mergeBase ? [`${from}...${to}`] : [from, to];
    const out = await this.r.must(['diff', '--name-only', ...(o.renames ? [] : ['--no-renames']), '-z', ...range, '--'], o);
    return out.split('\0').filter(Boolean);
  }

  /** The patch for `paths` (literal, never globs), with nothing of the clone's config run; '' when git fails. */
  async patch(from: string, to: string, paths: readonly string[], o: CallOptions = {}): Promise<string> {
    const args = ['--literal-pathspecs', 'diff', '--no-color', '--no-ext-diff', '--no-textconv', '--no-renames', from, to, '--', ...paths];
    return (await this.r.run(args, o)).stdout.toString();
  }

  /** `diff-tree -r -z --no-renames` from `from` to `to`, untrimmed (a path may end in a space). */
  async treeDiff(from: string, to: string, o: CallOptions = {}): Promise<string> {
    const args = ['diff-tree', '-r', '-z', '--no-renames', '--no-commit-id', from, to];
    const r = await this.r.run(args, o);
    if (r.exitCode !== 0) throw this.r.failed(args, r);
    return r.stdout.toString();
  }

  /** Which of `files` at `commit` hold a line matching the extended regex; none when git fails. */
  async filesMatching(commit: string, regex: string, files: readonly string[], o: CallOptions = {}): Promise<string[]> {
    const r = await this.r.run(['grep', '-l', '-E', '-e', regex, commit, '--', ...files], o);
    return r.stdout
      .toString()
      .split('\n')
      .filter(Boolean)
      .map((l) => l.slice(commit.length + 1));
  }
}
