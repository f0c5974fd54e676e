// Walking history: log and rev-list with the options abcd uses, output for the caller to parse
// in the format it asked for.
import { commitIdents, type CommitIdents } from './commit-header.js';
import type { CloneFiles } from './clone-files.js';
import type { Objects, Tried } from './objects.js';
import type { CallOptions, GitRunner } from './runner.js';

export type { CommitIdents } from './commit-header.js';

/** A `git log` over `revs` (tips, `a..b` ranges), limited to `paths` when given. */
export interface LogQuery {
  revs: readonly string[];
  paths?: readonly string[];
  /** `--format=` (git's placeholders). */
  format: string;
  firstParent?: boolean;
  maxCount?: number;
  reverse?: boolean;
  /** Entries end in NUL rather than newline. */
  z?: boolean;
  /** Only commits whose message holds this text (fixed string). */
  grep?: string;
  /** Each commit's changed paths after it, as `--name-only`, optionally of one kind (`--diff-filter`). */
  nameOnly?: boolean;
  diffFilter?: string;
  noRenames?: boolean;
  /**
   * Each commit's patch, with nothing of the clone's config run (no textconv, no external diff),
   * no renames and paths unquoted.
   */
  patch?: boolean;
}

/** A `git rev-list` over `revs`. */
export interface RevListQuery {
  revs: readonly string[];
  firstParent?: boolean;
  maxCount?: number;
  /** Only commits with at most this many parents (0: roots). */
  maxParents?: number;
  /** The commits named only, in the order given. */
  noWalk?: boolean;
  /** Each commit's raw headers and message after its id. */
  raw?: boolean;
}

export class History {
  constructor(
    private readonly r: GitRunner,
    private readonly objects: Objects,
    private readonly files: CloneFiles | undefined,
  ) {}

  /**
   * Who wrote and who committed `commit`, as `log -1 --format=%cn%x00%ce%x00%an%x00%ae` prints
   * them (trimmed as show() trims): from the commit object itself where git's log would print its
   * bytes unchanged (commit-header.ts), else from that log. GitFailed when it is not here.
   */
  async idents(commit: string, o: CallOptions = {}): Promise<CommitIdents> {
    const obj = this.files?.plainLog && !o.env ? await this.objects.readById(commit) : undefined;
    const read = obj?.type === 'commit' ? commitIdents(obj.content) : undefined;
    if (read) return read;
    const [committerName = '', committerEmail = '', authorName = '', authorEmail = ''] = (
      await this.show(commit, '%cn%x00%ce%x00%an%x00%ae', o)
    ).split('\0');
    return { committerName, committerEmail, authorName, authorEmail };
  }

  /** The log's output; GitFailed when git fails. */
  log(q: LogQuery, o: CallOptions = {}): Promise<string> {
    return this.r.must(logArgs(q), o);
  }

  /** The log's output untrimmed, or how git failed (a tip gone after a rewrite). */
  async tryLog(q: LogQuery, o: CallOptions = {}): Promise<Tried<Buffer>> {
    const r = await this.r.run(logArgs(q), o);
    return r.exitCode === 0 ? { ok: true, value: r.stdout } : { ok: false, failure: r };
  }

  /** One commit's fields in `format` (`log -1`), trimmed; GitFailed when it is not here. */
  show(commit: string, format: string, o: CallOptions = {}): Promise<string> {
    return this.r.must(['log', '-1', `--format=${format}`, commit], o);
  }

  /** The rev-list's output; GitFailed when git fails. */
  revList(q: RevListQuery, o: CallOptions = {}): Promise<string> {
    return this.r.must(revListArgs(q), o);
  }

  /** The rev-list's output, or how git failed. */
  async tryRevList(q: RevListQuery, o: CallOptions = {}): Promise<Tried<string>> {
    const r = await this.r.run(revListArgs(q), o);
    return r.exitCode === 0 ? { ok: true, value: r.stdout.toString() } : { ok: false, failure: r };
  }
}

function logArgs(q: LogQuery): string[] {
  return [
    ...(q.patch ? ['-c', 'core.quotePath=false'] : []),
    'log',
    ...(q.patch ? ['-p', '--no-color', '--no-ext-diff', '--no-textconv', '--no-renames'] : []),
    ...(q.z ? ['-z'] : []),
    ...(q.reverse ? ['--reverse'] : []),
    ...(q.firstParent ? ['--first-parent'] : []),
    ...(q.maxCount !== undefined ? [`--max-count=${q.maxCount}`] : []),
    ...(q.grep !== undefined ? ['--fixed-strings', `--grep=${q.grep}`] : []),
    `--format=${q.format}`,
    ...(q.nameOnly ? ['--name-only'] : []),
    ...(q.diffFilter ? [`--diff-filter=${q.diffFilter}`] : []),
    ...(q.noRenames && !q.patch ? ['--no-renames'] : []),
    ...q.revs,
    '--',
    ...(q.paths ?? []),
  ];
}

function revListArgs(q: RevListQuery): string[] {
  return [
    'rev-list',
    ...(q.noWalk ? ['--no-walk=unsorted'] : []),
    ...(q.firstParent ? ['--first-parent'] : []),
    ...(q.maxCount !== undefined ? [`--max-count=${q.maxCount}`] : []),
    ...(q.maxParents !== undefined ? [`--max-parents=${q.maxParents}`] : []),
    ...(q.raw ? ['--format=raw'] : []),
    ...q.revs,
    '--',
  ];
}
