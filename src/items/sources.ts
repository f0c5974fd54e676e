// The item sources of a repository, chosen by a key's source part: `local` (files on main)
// always, a forge's own (GitHub's issues) when `.abcd/config.json` on main sets `items.<forge>`
// (forges/item-sources.ts). Lanes and
// `abcd items` hold one ItemSources and never ask which kind an item is.
import { formatItem, type ItemKey } from '../records/item.js';
import { UsageError, type Refusal } from '../core/refusals.js';
import { forgeItemSourceNames, forgeItemsNotConfigured, openForgeItemSources } from '../forges/item-sources.js';
import type { RepoConfig } from '../repo/config.js';
import type { Repo } from '../repo/repo.js';
import { LocalItemSource } from './local-source.js';
import type { ForgeItemSource, ItemComment, ItemDoc, ItemLanded, ItemListing, ItemOutcome, ItemSource } from './source.js';

export const KNOWN_SOURCES: readonly string[] = ['local', ...forgeItemSourceNames()];

export class ItemSources implements ItemSource {
  readonly source = 'any';

  constructor(private readonly sources: ReadonlyMap<string, ItemSource>) {}

  /** The source that owns `key`; a source abcd does not know, or this repository did not set up, is refused. */
  of(key: ItemKey): ItemSource {
    const s = this.sources.get(key.source);
    if (s) return s;
    const item = formatItem(key);
    const notConfigured = forgeItemsNotConfigured(key.source, item);
    if (notConfigured) throw notConfigured;
    throw new UsageError(
      `${item} names the item source "${key.source}", which abcd does not know: the sources are ${KNOWN_SOURCES.join(', ')}.`,
      'item-source',
      {
        item,
        source: key.source,
        reason: 'unknown',
      },
    );
  }

  /** The GitHub issue source, for what only it can do (open an issue); refused as `of` refuses when not set up. */
  github(): ForgeItemSource {
    return this.of({ source: 'github', kind: 'issue', id: '1' }) as ForgeItemSource;
  }

  /** Every source's items side by side; a source that cannot be read fails the listing (never "no work"). */
  async list(mainTip: string): Promise<ItemListing> {
    const all = await Promise.all([...this.sources.values()].map((s) => s.list(mainTip)));
    return { mainTip, items: all.flatMap((l) => l.items), refused: all.flatMap((l) => l.refused) };
  }

  read(key: ItemKey, mainTip: string, listed?: ItemDoc): Promise<ItemDoc | undefined> {
    return this.of(key).read(key, mainTip, listed);
  }

  whyNotListed(key: ItemKey, mainTip: string): Promise<Refusal> {
    return this.of(key).whyNotListed(key, mainTip);
  }

  commentsSince(key: ItemKey, sinceMs: number): Promise<ItemComment[]> {
    return this.of(key).commentsSince(key, sinceMs);
  }

  landingNote(key: ItemKey): string | undefined {
    return this.of(key).landingNote(key);
  }

  markDone(key: ItemKey, landed: ItemLanded): Promise<{ warning?: string }> {
    return this.of(key).markDone(key, landed);
  }

  reportOutcome(key: ItemKey, outcome: ItemOutcome): Promise<{ warning?: string }> {
    return this.of(key).reportOutcome(key, outcome);
  }
}

/** The sources `config` (main's `.abcd/config.json`) sets up; GitHub calls end by `deadlineAt` when given. */
export function openItemSources(repo: Repo, config: RepoConfig, o: { deadlineAt?: number } = {}): ItemSources {
  const forgeSources = openForgeItemSources(config.items ?? {}, {
    forge: repo.forge,
    ...(repo.tokens ? { tokens: repo.tokens } : {}),
    deps: repo.deps,
    commonDir: repo.commonDir,
    ...(o.deadlineAt !== undefined ? { deadlineAt: o.deadlineAt } : {}),
  });
  return new ItemSources(new Map<string, ItemSource>([['local', new LocalItemSource(repo.git)], ...forgeSources]));
}
