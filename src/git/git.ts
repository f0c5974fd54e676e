// The typed git client: one instance bound to a clone's directory, its operations grouped by kind
// (refs, objects, history, diff, the working tree, worktrees, packs, transport, the clone's
// own facts).
import type { Env } from '../core/deps.js';
import { Clone } from './clone.js';
import { History } from './history.js';
import { Diff } from './diff.js';
import { Objects } from './objects.js';
import { Packs } from './packs.js';
import { Refs } from './refs.js';
import { GitRunner, RUNNER } from './runner.js';
import { Transport } from './transport.js';
import { Work } from './work.js';
import { Worktrees } from './worktrees.js';

export type { CallOptions, GitFailure, RunResult } from './runner.js';

/**
 * A clone's git, `-C dir` on every call, never chdir (gh's git client). A domain asks for "the
 * tree of this commit", never writes git's command line: each group is one kind of operation,
 * and each may later answer in-process (reading refs or objects from files) behind the same
 * method.
 */
export class Git {
  readonly [RUNNER]: GitRunner;
  readonly refs: Refs;
  readonly objects: Objects;
  readonly history: History;
  readonly diff: Diff;
  readonly work: Work;
  readonly worktrees: Worktrees;
  readonly packs: Packs;
  readonly transport: Transport;
  readonly clone: Clone;

  constructor(
    readonly dir: string,
    env: Env,
  ) {
    const r = new GitRunner(dir, env);
    this[RUNNER] = r;
    this.refs = new Refs(r);
    this.objects = new Objects(r);
    this.history = new History(r);
    this.diff = new Diff(r);
    this.work = new Work(r);
    this.worktrees = new Worktrees(r);
    this.packs = new Packs(r);
    this.transport = new Transport(r);
    this.clone = new Clone(r);
  }
}
