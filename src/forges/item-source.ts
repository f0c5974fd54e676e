// Where lanes find work: an ItemSource lists the items, reads one, and marks one done once its
// work landed. The embedded source reads `.abcd/items/<slug>.md` on main (items/local-source.ts);
// the GitHub source reads labelled issues (github/issue-source.ts); items/sources.ts picks one by
// the key's source part. It lives here, below items, because a forge supplies sources of its own.
// Lanes and `abcd items` depend on these files only, never on one source's kind.
import type { ItemKey } from '../records/item.js';
import type { Refusal } from '../core/refusals.js';
import type { Priority } from '../records/queue.js';

export type ItemStatus = 'ready' | 'done';

/** A comment on the item where its source has them (a GitHub issue's): hostile text, kept sanitized. */
export interface ItemComment {
  id: number;
  /** The author's login as the forge reports it (proven by the forge, not stated by the text). */
  author: string;
  /** What the forge says the author is to the repository: OWNER, MEMBER, COLLABORATOR, NONE, ... */
  association: string;
  /** A bot account (an App, abcd's own included). */
  bot: boolean;
  /** Sanitized: newlines kept, controls and invisibles replaced. */
  body: string;
  /** When it was written (ms). */
  at: number;
}

/** One unit of work as its source describes it, read from main at `mainTip`. */
export interface ItemDoc {
  key: ItemKey;
  title: string;
  status: ItemStatus;
  /** Canonical keys (formatItem) of the items that must be done first. */
  dependsOn: string[];
  /** The free text below the front matter, or the body (hostile: sanitize before printing). */
  body: string;
  /** Where the item lives: `.abcd/items/fix-login.md`, or the web address. */
  path: string;
  /** How urgent it is (front matter `priority`): orders the drain and the item's place in the land queue. */
  priority?: Priority;
  /** When the item entered main, or the issue was opened (ms): "oldest first". */
  addedAt?: number;
  /** The labels (GitHub source). */
  labels?: string[];
  /** An issue's place in items.github.priority (0: its first label); absent: after every ranked issue. */
  labelRank?: number;
  /** The comments so far, oldest first, when the source was asked for one item (read). */
  comments?: ItemComment[];
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

/** Where an item's work landed, for its source to record. */
export interface ItemLanded {
  /** The commit on main that carries the work. */
  commit: string;
  main: string;
  /** On the GitHub land strategy: the pull request it landed through. */
  pullRequest?: { number: number; url?: string };
  /** The lane run that built it. */
  runId?: string;
}

/** How one lane cycle on the item ended, for a source that reports results where the item lives. */
export interface ItemOutcome {
  runId: string;
  outcome: string;
  /** The refusal code behind a failure, and why, in words (already sanitized and scrubbed). */
  code?: string;
  reason?: string;
  /** Tokens the agent reported. */
  usage?: number;
  durationMs: number;
  /** outcome needs-review: the protected paths the work changes. */
  review?: { paths: string[] };
}

export interface ItemSource {
  /** The source part of the keys it owns (`local`, `github`). */
  readonly source: string;
  /** Every item at `mainTip` (a commit present in the local object store). */
  list(mainTip: string): Promise<ItemListing>;
  /**
   * One item as it stands now, with what a listing leaves out (an issue's comments); `listed` is
   * the listing's copy when there is one. Undefined when there is no such item.
   */
  read(key: ItemKey, mainTip: string, listed?: ItemDoc): Promise<ItemDoc | undefined>;
  /** Why `key` is not in this source's listing at `mainTip`, in the source's own words: the refusal to give. */
  whyNotListed(key: ItemKey, mainTip: string): Promise<Refusal>;
  /**
   * The comments on the item written at or after `sinceMs`, oldest first (none where the source
   * has no comments). A lane asks on every steer poll: one conditional request each.
   */
  commentsSince(key: ItemKey, sinceMs: number): Promise<ItemComment[]>;
  /** A line the pull request that lands the item carries (an issue's `Closes #n`), if any. */
  landingNote(key: ItemKey): string | undefined;
  /**
   * Records, where the source keeps items, that the item's work landed. Local: nothing, the
   * landed commit itself set `status: done`. GitHub: the issue is closed with a comment naming
   * the commit. Resolves to a warning when that could not be done (the landing stands).
   */
  markDone(key: ItemKey, landed: ItemLanded): Promise<{ warning?: string }>;
  /**
   * A cycle that did not land, reported where the item lives: GitHub keeps one result comment
   * per run on the issue, rewritten in place by later cycles (and by the landing). Local: nothing.
   */
  reportOutcome(key: ItemKey, outcome: ItemOutcome): Promise<{ warning?: string }>;
}

/** A source whose items abcd opens and closes where they live (GitHub's issues), not on main. */
export interface ForgeItemSource extends ItemSource {
  /** Opens a ready item; the forge gives its key (an issue's number). */
  openItem(input: { title: string; body: string; dependsOn: readonly number[] }): Promise<{ key: ItemKey; url?: string }>;
  /** Closes the item as done; false when it was closed already. */
  closeItem(key: ItemKey): Promise<boolean>;
}
