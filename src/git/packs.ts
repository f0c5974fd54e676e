// Moving objects between object stores as a pack: pack-objects of a revision range, and
// index-pack (strict: git's fsck checks on every object) into this store.
import type { CallOptions, GitRunner } from './runner.js';
import type { Tried } from './objects.js';

export class Packs {
  constructor(private readonly r: GitRunner) {}

  /** The objects reachable from `include` and not from `exclude`, as one pack; or how git failed. */
  async packObjects(include: readonly string[], exclude: readonly string[], o: CallOptions = {}): Promise<Tried<Buffer>> {
    const input = [...include, ...exclude.map((e) => `^${e}`)].map((l) => `${l}\n`).join('');
    const r = await this.r.run(['pack-objects', '--revs', '--stdout', '-q'], { ...o, input });
    return r.exitCode === 0 ? { ok: true, value: r.stdout } : { ok: false, failure: r };
  }

  /** As packObjects; GitFailed when git fails. */
  async mustPackObjects(include: readonly string[], exclude: readonly string[], o: CallOptions = {}): Promise<Buffer> {
    const r = await this.packObjects(include, exclude, o);
    if (!r.ok) throw this.r.failed(['pack-objects', '--revs', '--stdout', '-q'], { ...r.failure, stdout: Buffer.alloc(0) });
    return r.value;
  }

  /**
   * Stores a pack's objects here. `strict`: git's fsck checks on each (`fixThin`: completing a thin
   * pack from this store); or how git failed.
   */
  async indexPack(pack: Buffer, o: CallOptions & { strict?: boolean; fixThin?: boolean } = {}): Promise<Tried<void>> {
    const r = await this.r.run(indexPackArgs(o), { ...o, input: pack });
    return r.exitCode === 0 ? { ok: true, value: undefined } : { ok: false, failure: r };
  }

  /** Stores a small pack's objects loose, as a fetch below fetch.unpackLimit leaves them. */
  async unpack(pack: Buffer, o: CallOptions = {}): Promise<void> {
    await this.r.must(['unpack-objects', '-q'], { ...o, input: pack });
  }

  /** As indexPack; GitFailed when git fails. */
  async mustIndexPack(pack: Buffer, o: CallOptions & { strict?: boolean; fixThin?: boolean } = {}): Promise<void> {
    await this.r.must(indexPackArgs(o), { ...o, input: pack });
  }
}

function indexPackArgs(o: { strict?: boolean; fixThin?: boolean }): string[] {
  return ['index-pack', '--stdin', ...(o.strict ? ['--strict'] : []), ...(o.fixThin ? ['--fix-thin'] : [])];
}
