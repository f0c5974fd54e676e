// The clone's extra worktrees: add one detached at a commit, remove it, prune the forgotten.
import type { CallOptions, GitRunner } from './runner.js';

export class Worktrees {
  constructor(private readonly r: GitRunner) {}

  /** Adds a worktree at `dir`, detached at `commit`. */
  async add(dir: string, commit: string, o: CallOptions = {}): Promise<void> {
    await this.r.must(['worktree', 'add', '--detach', '-q', dir, commit], o);
  }

  /** Removes the worktree at `dir` even with changes; false when git could not. */
  async remove(dir: string, o: CallOptions = {}): Promise<boolean> {
    return (await this.r.run(['worktree', 'remove', '--force', dir], o)).exitCode === 0;
  }

  /** Forgets the worktrees whose folders are gone. */
  async prune(o: CallOptions = {}): Promise<void> {
    await this.r.run(['worktree', 'prune'], o);
  }
}
