// Where lanes find work. The embedded source reads `.abcd/items/<slug>.md` on main; GitHub
// issues come next behind the same interface. Lanes and `abcd items` depend on this file only.
import type { ItemKey } from '../records/item.js';
import type { Refusal } from '../core/refusals.js';
import type { Priority } from '../records/queue.js';

export type ItemStatus = 'ready' | 'done';

/** One unit of work as its source describes it, read from main at `mainTip`. */
export interface ItemDoc {
  key: ItemKey;
  title: string;
  status: ItemStatus;
  /** Canonical keys (formatItem) of the items that must be done first. */
  dependsOn: string[];
  /** The free text below the front matter (hostile: sanitize before printing). */
  body: string;
  /** Where the item lives in the repository, e.g. `.abcd/items/fix-login.md`. */
  path: string;
  /** How urgent it is (front matter `priority`): orders the drain and the item's place in the land queue. */
  priority?: Priority;
  /** When the item entered main (ms, commit time of the commit that added it): "oldest first". */
  addedAt?: number;
}

/** An item file this abcd could not read; the others still read. */
export interface ItemRefused {
  path: string;
  key?: ItemKey;
  refusal: Refusal;
}

export interface ItemListing {
  /** main's tip the listing was read from. */
  mainTip: string;
  items: ItemDoc[];
  refused: ItemRefused[];
}

export interface ItemSource {
  /** The source part of the keys it owns (`local`). */
  readonly source: string;
  /** Every item on main at `mainTip` (a commit present in the local object store). */
  list(mainTip: string): Promise<ItemListing>;
}
