// Reading and moving refs: resolve a revision, list refs, ancestry, update and delete.
import { unlessSystemError } from '../core/best-effort.js';
import { ancestryByWalk } from './ancestry-walk.js';
import { readRefFromFiles } from './files/refs-read.js';
import { readDetachedHead } from './files/symref-read.js';
import type { CloneFiles } from './clone-files.js';
import type { Objects } from './objects.js';
import type { CallOptions, GitRunner } from './runner.js';

/** One ref and the object it points at, as `for-each-ref` lists it. */
export interface RefTip {
  oid: string;
  ref: string;
}

export class Refs {
  constructor(
    private readonly r: GitRunner,
    private readonly objects: Objects,
    private readonly files: CloneFiles | undefined,
  ) {}

  /** The object a revision names (`rev-parse --verify -q`), or undefined when it names none. */
  async resolve(rev: string, o: CallOptions = {}): Promise<string | undefined> {
    const r = await this.r.run(['rev-parse', '--verify', '-q', rev], o);
    return r.exitCode === 0 ? r.stdout.toString().trim() : undefined;
  }

  /** The object a revision names; one that names nothing is GitFailed (exit 9). */
  mustResolve(rev: string, o: CallOptions = {}): Promise<string> {
    return this.r.must(['rev-parse', '--verify', rev], o);
  }

  /**
   * The commit a full ref name holds (`rev-parse --verify -q <ref>^{commit}`), or undefined when
   * it names none. Read from the ref's file and the object's type where the clone's files are
   * plain and the ref holds a commit itself; anything else (a packed-refs git must read, a
   * symbolic ref, a tag to peel, a ref not there, which git might still find by another rule)
   * is git's answer.
   */
  async commitOf(ref: string, o: CallOptions = {}): Promise<string | undefined> {
    const oid = this.files && !o.env ? refFile(this.files.commonDir, ref) : undefined;
    if (oid && (await this.objects.readById(oid))?.type === 'commit') return oid;
    return this.resolve(`${ref}^{commit}`, o);
  }

  /** The commit HEAD is at; GitFailed when there is none. */
  head(o: CallOptions = {}): Promise<string> {
    return this.r.must(['rev-parse', 'HEAD'], o);
  }

  /**
   * What a detached HEAD holds, from the worktree's files where the clone's are plain (as
   * `rev-parse HEAD` answers, unchecked), else as resolve('HEAD') answers it; undefined: none.
   */
  async detachedHead(o: CallOptions = {}): Promise<string | undefined> {
    const oid = this.files && !o.env ? await readDetachedHead(this.r.dir) : undefined;
    return oid ?? this.resolve('HEAD', o);
  }

  /** The ref a symbolic ref points at (`short`: as a branch name), or undefined when it is not one. */
  async symbolic(name: string, o: { short?: boolean } = {}): Promise<string | undefined> {
    const r = await this.r.run(['symbolic-ref', ...(o.short ? ['--short'] : []), '-q', name]);
    const text = r.stdout.toString().trim();
    return r.exitCode === 0 && text !== '' ? text : undefined;
  }

  /** Every ref under the patterns (prefixes or globs), with its object; GitFailed when git fails. */
  async list(patterns: readonly string[], o: CallOptions = {}): Promise<RefTip[]> {
    const out = await this.r.must(['for-each-ref', '--format=%(objectname) %(refname)', ...patterns], o);
    return parseRefTips(out);
  }

  /** As `list`, or undefined when git fails. */
  async tryList(patterns: readonly string[], o: CallOptions = {}): Promise<RefTip[] | undefined> {
    const r = await this.r.run(['for-each-ref', '--format=%(objectname) %(refname)', ...patterns], o);
    return r.exitCode === 0 ? parseRefTips(r.stdout.toString()) : undefined;
  }

  /**
   * Whether `ancestor` is reachable from `descendant`. undefined: git could not tell, because
   * one of them is not in this clone (exit 128). Where the clone's files are plain, a short walk
   * of parents answers first when it can (ancestry-walk.ts).
   */
  async isAncestor(ancestor: string, descendant: string, o: CallOptions = {}): Promise<boolean | undefined> {
    if (this.files && !o.env) {
      const walked = await ancestryByWalk((specs) => this.objects.readObjects(specs), this.files.commonDir, ancestor, descendant);
      if (walked !== undefined) return walked;
    }
    const r = await this.r.run(['merge-base', '--is-ancestor', ancestor, descendant], o);
    if (r.exitCode === 128) return undefined;
    return r.exitCode === 0;
  }

  /** The best common ancestor of two commits, or undefined when they share none. */
  async mergeBase(a: string, b: string, o: CallOptions = {}): Promise<string | undefined> {
    const r = await this.r.run(['merge-base', a, b], o);
    return r.exitCode === 0 ? r.stdout.toString().trim() || undefined : undefined;
  }

  /** Points `ref` at `oid`; with `old`, only if it is there now ('' : only if the ref does not exist). */
  async update(ref: string, oid: string, old?: string, o: CallOptions = {}): Promise<void> {
    await this.r.must(['update-ref', ref, oid, ...(old !== undefined ? [old] : [])], o);
  }

  /** Deletes a ref; false when git could not (it was not there, or is locked). */
  async delete(ref: string, o: CallOptions = {}): Promise<boolean> {
    return (await this.r.run(['update-ref', '-d', ref], o)).exitCode === 0;
  }

  /** Deletes every ref named, in one transaction; GitFailed when git fails. */
  async deleteAll(refs: readonly string[], o: CallOptions = {}): Promise<void> {
    await this.r.must(['update-ref', '--stdin'], { ...o, input: refs.map((r) => `delete ${r}\n`).join('') });
  }
}

/** The ref's id from the files; undefined where git must say (including a failed read). */
function refFile(commonDir: string, ref: string): string | undefined {
  try {
    return readRefFromFiles(commonDir, ref) ?? undefined;
  } catch (e) {
    return unlessSystemError(undefined)(e);
  }
}

function parseRefTips(out: string): RefTip[] {
  const tips: RefTip[] = [];
  for (const line of out.split('\n')) {
    const sp = line.indexOf(' ');
    if (sp > 0) tips.push({ oid: line.slice(0, sp), ref: line.slice(sp + 1) });
  }
  return tips;
}
