// Reading and writing objects: blobs at a path, trees, one batch reader for many objects,
// hash-object, mktree and commit-tree with the quiet flags.
import { isObjectId } from './object-id.js';
import { readLooseObject } from './files/loose-read.js';
import { hasReplaceRefs, readLooseSpec } from './files/loose-resolve.js';
import type { CloneFiles } from './clone-files.js';
import { infoThenContents, parseInfo, type InfoThenContents, type ObjectInfo } from './object-batch.js';
import { readableById, type ObjectReader } from './object-reader.js';
import type { GitObject, Tried } from './object-types.js';
import { QUIET, type CallOptions, type GitRunner } from './runner.js';

export type { GitObject, Tried } from './object-types.js';

/** One entry of `ls-tree -z`: `size` is undefined unless asked for, and for a tree or a submodule. */
export interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
  size: number | undefined;
  path: string;
}

export type LsTreeOptions = CallOptions & { paths?: readonly string[]; fullTree?: boolean; sizes?: boolean };

/** A commit to write: its tree, parents and message, and whose it is (GIT_AUTHOR_* in env). */
export interface NewCommit {
  tree: string;
  parents: readonly string[];
  /** Taken as it is; a list is git's paragraphs (`-m` each). */
  message: string | readonly string[];
  /** Sign with git's own commit signing (gpg.format, user.signingkey); otherwise never signed. */
  sign?: boolean;
  env?: Record<string, string>;
}

// The most specs of one read tried in the loose files first (each a few file reads in turn).
const MAX_LOOSE_SPECS = 32;

export class Objects {
  constructor(
    private readonly r: GitRunner,
    private readonly reader: ObjectReader,
    private readonly files: CloneFiles | undefined,
  ) {}

  private looseAt: string | null | undefined;

  /** The loose object dir to read first: a plain clone's, unless replace refs make git read other objects. */
  private looseDir(): string | null {
    this.looseAt ??= this.files && !hasReplaceRefs(this.files.commonDir) ? this.files.objectsDir : null;
    return this.looseAt;
  }

  /** Whether an object (`oid`, `commit:path`, `rev^{commit}`) is in this clone. */
  async exists(spec: string, o: CallOptions = {}): Promise<boolean> {
    return (await this.r.run(['cat-file', '-e', spec], o)).exitCode === 0;
  }

  /** Whether a commit is in this clone. */
  hasCommit(oid: string, o: CallOptions = {}): Promise<boolean> {
    return this.exists(`${oid}^{commit}`, o);
  }

  /** A commit that must be in this clone; GitFailed (exit 9) when it is not. */
  async mustHaveCommit(oid: string, o: CallOptions = {}): Promise<void> {
    await this.r.must(['cat-file', '-e', `${oid}^{commit}`], o);
  }

  /** A blob's bytes (`oid` or `commit:path`), or undefined when there is no such blob. */
  async readBlob(spec: string, o: CallOptions = {}): Promise<Buffer | undefined> {
    const r = await this.r.run(['cat-file', 'blob', spec], o);
    return r.exitCode === 0 ? r.stdout : undefined;
  }

  /** The blob at `path` in `commit`, or undefined when there is none. */
  readBlobAt(commit: string, path: string, o: CallOptions = {}): Promise<Buffer | undefined> {
    return this.readBlob(`${commit}:${path}`, o);
  }

  /** A blob's text, trimmed; GitFailed when there is no such blob. */
  mustReadText(spec: string, o: CallOptions = {}): Promise<string> {
    return this.r.must(['cat-file', 'blob', spec], o);
  }

  /** The id of what is at `path` in `commit`, or undefined when nothing is. */
  async idAt(commit: string, path: string, o: CallOptions = {}): Promise<string | undefined> {
    const r = await this.r.run(['rev-parse', '--verify', '--quiet', `${commit}:${path}`], o);
    return r.exitCode === 0 ? r.stdout.toString().trim() : undefined;
  }

  /** The tree of a commit; GitFailed when it is not a commit here. */
  treeOf(commit: string, o: CallOptions = {}): Promise<string> {
    return this.r.must(['rev-parse', `${commit}^{tree}`], o);
  }

  /** The trees of several commits in one process, or how git failed (a commit names a tree it lacks). */
  async treesOf(commits: readonly string[], o: CallOptions = {}): Promise<Tried<string[]>> {
    const r = await this.r.run(['rev-parse', ...commits.map((c) => `${c}^{tree}`)], o);
    if (r.exitCode !== 0) return { ok: false, failure: r };
    return { ok: true, value: r.stdout.toString().trim().split('\n') };
  }

  /** Each spec's type and size, in one `cat-file --batch-check`; undefined: missing. */
  async infos(specs: readonly string[], o: CallOptions = {}): Promise<(ObjectInfo | undefined)[]> {
    const out = await this.r.must(['cat-file', '--batch-check'], { ...o, input: specs.map((s) => `${s}\n`).join('') });
    return out.split('\n').map(parseInfo);
  }

  /** As infos, or how git failed. */
  async tryInfos(specs: readonly string[], o: CallOptions = {}): Promise<Tried<(ObjectInfo | undefined)[]>> {
    const r = await this.r.run(['cat-file', '--batch-check'], { ...o, input: specs.map((s) => `${s}\n`).join('') });
    return r.exitCode === 0 ? { ok: true, value: r.stdout.toString().split('\n').map(parseInfo) } : { ok: false, failure: r };
  }

  /** Each spec's type and size, then the contents of what `pick` chose, in one process (object-batch.ts). */
  infoThenContents(specs: readonly string[], pick: (infos: (ObjectInfo | undefined)[]) => string[]): Promise<InfoThenContents | undefined> {
    return infoThenContents(this.r, specs, pick);
  }

  /**
   * Each spec's object, in request order; undefined: missing. Specs rooted at an object id go to
   * the verb's one reader (object-reader.ts); others, or a call with its own environment, to a
   * `cat-file --batch` of their own.
   */
  async readObjects(specs: readonly string[], o: CallOptions = {}): Promise<Tried<(GitObject | undefined)[]>> {
    if (!o.env && o.timeoutMs === undefined && specs.every(readableById)) return this.readByIds(specs);
    const r = await this.r.run(['cat-file', '--batch'], { ...o, input: specs.map((s) => `${s}\n`).join('') });
    if (r.exitCode !== 0) return { ok: false, failure: r };
    return { ok: true, value: parseBatch(r.stdout, specs.length) };
  }

  /** Specs rooted at ids: each from the loose files where it can be (loose-resolve.ts), the rest from the reader. */
  private async readByIds(specs: readonly string[]): Promise<Tried<(GitObject | undefined)[]>> {
    // Many reads one after the other cost more than one pass of the reader: a big batch goes there whole.
    const dir = specs.length <= MAX_LOOSE_SPECS ? this.looseDir() : null;
    const out: (GitObject | undefined)[] = [];
    const left: number[] = [];
    for (const [i, spec] of specs.entries()) {
      const read = dir ? await readLooseSpec(dir, spec) : undefined;
      if (read === undefined) left.push(i);
      else out[i] = read ?? undefined;
    }
    if (!left.length) return { ok: true, value: out };
    const r = await this.reader.read(left.map((i) => specs[i]!));
    if (!r.ok) return r;
    for (const [k, i] of left.entries()) out[i] = r.value[k];
    return { ok: true, value: out };
  }

  /**
   * One object by its id: from its loose file where the clone's files are plain and it is loose,
   * else through the reader; undefined when it is not here, or git could not read it.
   */
  async readById(oid: string): Promise<GitObject | undefined> {
    const dir = this.looseDir();
    const loose = dir ? await readLooseObject(dir, oid) : undefined;
    if (loose) return { oid, type: loose.type, content: loose.body };
    if (!isObjectId(oid)) return undefined;
    const r = await this.reader.read([oid]);
    return r.ok ? r.value[0] : undefined;
  }

  /**
   * The entries of a tree (`paths`: only those, relative to the directory unless `fullTree`;
   * `sizes`: each blob's size, which reads every blob's header), or how git failed.
   */
  async lsTree(treeish: string, o: LsTreeOptions = {}): Promise<Tried<TreeEntry[]>> {
    const paths = o.paths ? ['--', ...o.paths] : [];
    const r = await this.r.run(['ls-tree', ...(o.fullTree ? ['--full-tree'] : []), ...(o.sizes ? ['-l'] : []), '-z', treeish, ...paths], o);
    if (r.exitCode !== 0) return { ok: false, failure: r };
    return { ok: true, value: parseTree(r.stdout.toString('utf8')) };
  }

  /** As lsTree; GitFailed when git fails. */
  async mustLsTree(treeish: string, o: LsTreeOptions = {}): Promise<TreeEntry[]> {
    const r = await this.lsTree(treeish, o);
    if (!r.ok) throw this.r.failed(['ls-tree', treeish, ...(o.paths ? ['--', ...o.paths] : [])], { ...r.failure, stdout: Buffer.alloc(0) });
    return r.value;
  }

  /** Writes a blob; its id. */
  hashObject(content: string | Buffer, o: CallOptions = {}): Promise<string> {
    return this.r.must(['hash-object', '-w', '--stdin'], { ...o, input: content });
  }

  /** Writes a tree of the entries given (any order); its id. */
  mktree(entries: ReadonlyArray<{ mode: string; type: string; oid: string; name: string }>, o: CallOptions = {}): Promise<string> {
    return this.r.must(['mktree'], { ...o, input: entries.map((e) => `${e.mode} ${e.type} ${e.oid}\t${e.name}\n`).join('') });
  }

  /** Writes a commit; its id, or how git failed (a signing key that would not sign). */
  async commitTree(c: NewCommit): Promise<Tried<string>> {
    const r = await this.r.run(commitTreeArgs(c), commitTreeInput(c));
    if (r.exitCode !== 0) return { ok: false, failure: r };
    return { ok: true, value: r.stdout.toString().trim() };
  }

  /** Writes a commit; its id. GitFailed when git fails. */
  mustCommitTree(c: NewCommit): Promise<string> {
    return this.r.must(commitTreeArgs(c), commitTreeInput(c));
  }
}

function commitTreeArgs(c: NewCommit): string[] {
  const parents = c.parents.flatMap((p) => ['-p', p]);
  const message = typeof c.message === 'string' ? ['-F', '-'] : c.message.flatMap((m) => ['-m', m]);
  return c.sign ? ['commit-tree', '-S', c.tree, ...parents, ...message] : [...QUIET, 'commit-tree', c.tree, ...parents, ...message];
}

function commitTreeInput(c: NewCommit): CallOptions & { input?: string } {
  return { ...(typeof c.message === 'string' ? { input: c.message } : {}), ...(c.env ? { env: c.env } : {}) };
}

/** `cat-file --batch` output: one answer per spec, `<oid> <type> <size>\n<bytes>\n` or `<spec> missing`. */
function parseBatch(out: Buffer, count: number): (GitObject | undefined)[] {
  const found: (GitObject | undefined)[] = [];
  let at = 0;
  while (found.length < count && at < out.length) {
    const nl = out.indexOf(10, at);
    if (nl < 0) break;
    const info = parseInfo(out.subarray(at, nl).toString('latin1'));
    at = nl + 1;
    if (!info) {
      found.push(undefined);
      continue;
    }
    found.push({ oid: info.oid, type: info.type, content: Buffer.from(out.subarray(at, at + info.size)) });
    at += info.size + 1;
  }
  return found;
}

/** `ls-tree -z` output: `<mode> <type> <oid>[ <size>]\t<path>\0` per entry. */
function parseTree(out: string): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (const rec of out.split('\0')) {
    const m = /^(\d+) (\w+) ([0-9a-f]+)(?: +(-|\d+))?\t(.*)$/s.exec(rec);
    if (m)
      entries.push({
        mode: m[1]!,
        type: m[2]!,
        oid: m[3]!,
        size: m[4] === undefined || m[4] === '-' ? undefined : Number(m[4]),
        path: m[5]!,
      });
  }
  return entries;
}
