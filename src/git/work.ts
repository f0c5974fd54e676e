// The working tree and index at a client's directory: checkout, rebase, merge and squash that
// answer a conflict as data, staging, committing, and index plumbing for a private index.
import type { Tried } from './objects.js';
import { QUIET, type CallOptions, type GitFailure, type GitRunner } from './runner.js';

/** How bringing commits onto others went: done, or stopped on conflicts (aborted unless said). */
export type Integrated = { ok: true } | { ok: false; conflict: string[]; failure: GitFailure };

export class Work {
  constructor(private readonly r: GitRunner) {}

  /** Detaches HEAD at `commit`, updating the files; no hook runs. */
  async checkout(commit: string, o: CallOptions = {}): Promise<void> {
    await this.r.must([...QUIET, 'checkout', '-q', '--detach', commit], o);
  }

  /** Rebases HEAD onto `base`; a conflict is aborted and named. */
  rebase(base: string, o: CallOptions = {}): Promise<Integrated> {
    return this.integrate('rebase', [...QUIET, 'rebase', '-q', base], o);
  }

  /** Merges `head` into HEAD with a merge commit of `message`; a conflict is aborted and named. */
  merge(head: string, message: string, o: CallOptions = {}): Promise<Integrated> {
    return this.integrate('merge', [...QUIET, 'merge', '-q', '--no-ff', '--no-edit', '-m', message, head], o);
  }

  /**
   * Stages `head`'s change onto HEAD as one change, uncommitted (`merge --squash`). A conflict is
   * left in place and named; a failure that is no conflict is an Error.
   */
  async squashMerge(head: string, o: CallOptions = {}): Promise<Integrated> {
    const merge = await this.r.run([...QUIET, 'merge', '--squash', head], o);
    const files = (await this.r.must(['diff', '--name-only', '--diff-filter=U'])).split('\n').filter(Boolean);
    if (merge.exitCode !== 0 && files.length === 0) throw new Error(`git merge --squash ${head} failed: ${merge.stderr.trim()}`);
    return files.length || merge.exitCode !== 0 ? { ok: false, conflict: files, failure: merge } : { ok: true };
  }

  private async integrate(step: 'rebase' | 'merge', args: string[], o: CallOptions): Promise<Integrated> {
    const r = await this.r.run(args, o);
    if (r.exitCode === 0) return { ok: true };
    const conflict = (await this.r.run(['diff', '--name-only', '--diff-filter=U'])).stdout.toString().split('\n').filter(Boolean);
    await this.r.run([step, '--abort']);
    return { ok: false, conflict, failure: r };
  }

  /** Stages the paths given. */
  async add(paths: readonly string[], o: CallOptions = {}): Promise<void> {
    await this.r.must(['add', '--', ...paths], o);
  }

  /**
   * Commits what is staged (no hook, no signing). A string message is taken as it is; a
   * list is git's paragraphs (`-m` each, joined and cleaned by git). `allowEmpty`: even when
   * nothing changed.
   */
  async commit(message: string | readonly string[], o: CallOptions & { allowEmpty?: boolean } = {}): Promise<void> {
    const empty = o.allowEmpty ? ['--allow-empty'] : [];
    if (typeof message === 'string')
      await this.r.must([...QUIET, 'commit', '-q', '--no-verify', ...empty, '--cleanup=verbatim', '-F', '-'], { ...o, input: message });
    else await this.r.must([...QUIET, 'commit', '-q', '--no-verify', ...empty, ...message.flatMap((m) => ['-m', m])], o);
  }

  /** Moves HEAD to `commit`, keeping the index and files. */
  async resetSoft(commit: string, o: CallOptions = {}): Promise<void> {
    await this.r.must(['reset', '-q', '--soft', commit], o);
  }

  /** Reads `tree` into the index (GIT_INDEX_FILE in env for a private one); `update`: the files too, discarding changes. */
  async readTree(tree: string, o: CallOptions & { update?: boolean } = {}): Promise<void> {
    await this.r.must([...(o.update ? [...QUIET, 'read-tree', '-u', '--reset'] : ['read-tree']), tree], o);
  }

  /**
   * The files of the working tree (GIT_WORK_TREE, GIT_INDEX_FILE in env) as a tree: `base` read
   * into the index, every file added; its id, or how git failed (a base whose trees are missing).
   */
  async snapshot(base: string, o: CallOptions = {}): Promise<Tried<string>> {
    for (const args of [
      ['read-tree', base],
      ['add', '-A', '--', '.'],
    ]) {
      const r = await this.r.run([...QUIET, ...args], o);
      if (r.exitCode !== 0) return { ok: false, failure: r };
    }
    return { ok: true, value: await this.r.must([...QUIET, 'write-tree'], o) };
  }

  /** Puts a blob at `path` in the index. */
  async stageBlob(path: string, blob: string, o: CallOptions & { mode?: string } = {}): Promise<void> {
    await this.r.must(['update-index', '--add', '--cacheinfo', `${o.mode ?? '100644'},${blob},${path}`], o);
  }

  /** Writes the index as a tree; its id. */
  writeTree(o: CallOptions = {}): Promise<string> {
    return this.r.must(['write-tree'], o);
  }
}
