// The typed git client: one instance bound to a clone's directory, its operations grouped by kind
// (refs, objects, history, diff, the working tree, worktrees, packs, transport, the clone's
// own facts).
import type { Env } from '../core/deps.js';
import { Clone } from './clone.js';
import type { CloneFiles } from './clone-files.js';
import { History } from './history.js';
import { Diff } from './diff.js';
import { ObjectReader } from './object-reader.js';
import { Objects } from './objects.js';
import { Packs } from './packs.js';
import { Refs } from './refs.js';
import { GitRunner, RUNNER } from './runner.js';
import { Transport } from './transport.js';
import { Work } from './work.js';
import { Worktrees } from './worktrees.js';

export type { CallOptions, GitFailure, RunResult } from './runner.js';

export type { CloneFiles } from './clone-files.js';

export interface GitOptions {
  files?: CloneFiles;
  /** The clone this is a worktree of: its object reader and files serve this one too. */
  of?: Git;
}

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
  readonly files: CloneFiles | undefined;
  /** The one `cat-file --batch` of this clone and its worktrees (object-reader.ts). */
  private readonly reader: ObjectReader;

  constructor(
    readonly dir: string,
    private readonly env: Env,
    o: GitOptions = {},
  ) {
    const r = new GitRunner(dir, env);
    this[RUNNER] = r;
    this.files = o.files ?? o.of?.files;
    this.reader = o.of ? o.of.reader : new ObjectReader(r);
    this.objects = new Objects(r, this.reader, this.files);
    this.refs = new Refs(r, this.objects, this.files);
    this.history = new History(r, this.objects, this.files);
    this.diff = new Diff(r, this.objects);
    this.work = new Work(r);
    this.worktrees = new Worktrees(r);
    this.packs = new Packs(r);
    this.transport = new Transport(r);
    this.clone = new Clone(r);
  }

  /** The git of a worktree of this clone at `dir` (`env`: instead of this one's), sharing its object reader. */
  worktree(dir: string, env: Env = this.env): Git {
    return new Git(dir, env, { of: this });
  }
}
