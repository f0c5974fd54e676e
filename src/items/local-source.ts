// The embedded item source: `.abcd/items/<slug>.md` on main. Three git processes read every
// item whatever their number (`ls-tree` for names and sizes, one `cat-file --batch` for all
// contents, one `log` for when each arrived), never one per item. A file that cannot be read
// is refused alone.
import { formatItem, shortItem, type ItemKey } from '../records/item.js';
import { ItemInvalid, UsageError, isRefusal, type Refusal } from '../core/refusals.js';
import { compareNatural } from '../core/natural-order.js';
import type { Git } from '../git/git.js';
import { checkItemGraph } from './item-graph.js';
import { ITEMS_DIR, keyOfFileName, parseItemFile } from './item-file.js';
import type { ItemDoc, ItemListing, ItemRefused, ItemSource } from './source.js';
import { itemPath } from './item-path.js';

// An item is a page of text; a bigger file is refused unread rather than loaded.
export const MAX_ITEM_BYTES = 64 * 1024;
// Regular files only: a symlink or submodule under .abcd/items is no item.
const FILE_MODES = new Set(['100644', '100755']);

interface TreeEntry {
  name: string;
  mode: string;
  type: string;
  oid: string;
  size: number;
}

export class LocalItemSource implements ItemSource {
  readonly source = 'local';

  /** The last `addedAt` read: main's tip and each item path's arrival (ms). */
  private added: { tip: string; map: Map<string, number> } | undefined;

  constructor(private readonly git: Git) {}

  async list(mainTip: string): Promise<ItemListing> {
    const entries = await this.readTree(mainTip);
    const refused: ItemRefused[] = [];
    const wanted: Array<{ entry: TreeEntry; key: ItemKey; path: string }> = [];
    for (const entry of entries) {
      const path = `${ITEMS_DIR}/${entry.name}`;
      if (entry.type === 'tree') continue; // folders may hold notes or images for items
      let key: ItemKey;
      try {
        key = keyOfFileName(entry.name);
      } catch (e) {
        if (!isRefusal(e)) throw e;
        refused.push({ path, refusal: e });
        continue;
      }
      if (!FILE_MODES.has(entry.mode) || entry.type !== 'blob') {
        refused.push({ path, key, refusal: invalid(path, key, 'not-a-file', 'it is not a regular file (a symlink or a submodule?)') });
      } else if (entry.size > MAX_ITEM_BYTES) {
        refused.push({
          path,
          key,
          refusal: invalid(path, key, 'too-large', `it is ${entry.size} bytes, over ${MAX_ITEM_BYTES}; it was not read`),
        });
      } else wanted.push({ entry, key, path });
    }
    const [blobs, added] = await Promise.all([this.readBlobs(wanted.map((w) => w.entry.oid)), this.readAddedAt(mainTip)]);
    const docs: ItemDoc[] = [];
    for (const w of wanted) {
      try {
        const doc = parseItemFile(w.path, w.key, blobs.get(w.entry.oid)!.toString('utf8'));
        const at = added.get(w.path);
        docs.push(at === undefined ? doc : { ...doc, addedAt: at });
      } catch (e) {
        if (!isRefusal(e)) throw e;
        refused.push({ path: w.path, key: w.key, refusal: e });
      }
    }
    const present = new Set([...wanted.map((w) => formatItem(w.key)), ...refused.flatMap((r) => (r.key ? [formatItem(r.key)] : []))]);
    const graph = checkItemGraph(docs, present);
    return {
      mainTip,
      items: graph.items.sort(byKey),
      refused: [...refused, ...graph.refused].sort((a, b) => a.path.localeCompare(b.path)),
    };
  }

  async read(key: ItemKey, mainTip: string, listed?: ItemDoc): Promise<ItemDoc | undefined> {
    if (listed) return listed; // the file at this commit is what was listed: nothing more to read
    const k = formatItem(key);
    return (await this.list(mainTip)).items.find((i) => formatItem(i.key) === k);
  }

  async whyNotListed(key: ItemKey, mainTip: string): Promise<Refusal> {
    const k = formatItem(key);
    const refused = (await this.list(mainTip)).refused.find((r) => r.key && formatItem(r.key) === k);
    if (refused) return refused.refusal;
    return new UsageError(
      `there is no item ${shortItem(key)} on main (${mainTip.slice(0, 12)}): add ${itemPath(key.id)} there, or run abcd items to see the items.`,
      'no-item',
      { item: k },
    );
  }

  /** Item files have no comments: a change of the file itself is what steers (the watcher reads main). */
  commentsSince(): Promise<never[]> {
    return Promise.resolve([]);
  }

  landingNote(): undefined {
    return undefined;
  }

  /** Nothing to do: a lane's results are in abcd status. */
  reportOutcome(): Promise<{ warning?: string }> {
    return Promise.resolve({});
  }

  /** Nothing to do: the landing marked the file `status: done` in the landed commit (mark-done.ts). */
  markDone(): Promise<{ warning?: string }> {
    return Promise.resolve({});
  }

  /** The entries of `.abcd/items/` at `commit`; none when the folder is not there. */
  private async readTree(commit: string): Promise<TreeEntry[]> {
    const r = await this.git.objects.lsTree(commit, { paths: [`${ITEMS_DIR}/`], fullTree: true, sizes: true });
    if (!r.ok) throw new Error(`git ls-tree of ${commit} failed (exit ${r.failure.exitCode}): ${r.failure.stderr.trim()}`);
    return r.value.map((e) => ({ mode: e.mode, type: e.type, oid: e.oid, size: e.size ?? 0, name: e.path.slice(ITEMS_DIR.length + 1) }));
  }

  /**
   * When each item file last entered main: `git log` over the items folder, newest first, so
   * the first time a path shows is its latest addition (a file removed and added again counts
   * from its return). A lane polls main: the next read logs only the commits since the last
   * one (main only moves forward under land; after a rewrite an age may be approximate, which
   * only affects the order items are taken in).
   */
  private async readAddedAt(commit: string): Promise<Map<string, number>> {
    const since = this.added;
    if (since?.tip === commit) return since.map;
    const range = since ? [`${since.tip}..${commit}`] : [commit];
    const r = await this.git.history.tryLog({
      revs: range,
      paths: [`${ITEMS_DIR}/`],
      format: '%x01%ct',
      nameOnly: true,
      diffFilter: 'A',
      noRenames: true,
    });
    if (!r.ok && since) {
      this.added = undefined; // the old tip is gone (gc after a rewrite): read it all again
      return this.readAddedAt(commit);
    }
    if (!r.ok) throw new Error(`git log of ${ITEMS_DIR} at ${commit} failed (exit ${r.failure.exitCode}): ${r.failure.stderr.trim()}`);
    const fresh = new Map<string, number>();
    let at = 0;
    for (const line of r.value.toString('utf8').split('\n')) {
      if (line.startsWith('\u0001')) at = Number(line.slice(1)) * 1000;
      else if (line !== '' && !fresh.has(line)) fresh.set(line, at);
    }
    const map = new Map([...(since?.map ?? []), ...fresh]);
    this.added = { tip: commit, map };
    return map;
  }

  /** Every blob in one `cat-file --batch`; contents by object id. */
  private async readBlobs(oids: readonly string[]): Promise<Map<string, Buffer>> {
    const unique = [...new Set(oids)];
    const found = new Map<string, Buffer>();
    if (unique.length === 0) return found;
    const r = await this.git.objects.readObjects(unique);
    if (!r.ok) throw new Error(`git cat-file --batch failed (exit ${r.failure.exitCode}): ${r.failure.stderr.trim()}`);
    for (const o of r.value) if (o) found.set(o.oid, o.content);
    for (const oid of unique) if (!found.has(oid)) throw new Error(`git cat-file --batch did not return the item blob ${oid}`);
    return found;
  }
}

function invalid(path: string, key: ItemKey, reason: string, what: string): ItemInvalid {
  return new ItemInvalid(`${path}: ${what}; fix it on main.`, { path, key: formatItem(key), reason });
}

function byKey(a: ItemDoc, b: ItemDoc): number {
  return compareNatural(a.key.id, b.key.id);
}
