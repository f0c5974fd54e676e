// The item sources forges supply, one entry per ForgeKind (undefined: that forge holds no items
// abcd takes): the type below fails the build when a kind is missing. items/sources.ts opens
// the ones main's `.abcd/config.json` sets up, under `items.<kind>`.
import type { Refusal } from '../core/refusals.js';
import type { ForgeItems, ForgeItemsInput, ForgeKind } from './forge.js';
import { githubItems } from './github/items.js';
import type { ForgeItemSource } from './item-source.js';
import type { ForgeItemsSections } from './items-config.js';

type SectionOf<K extends ForgeKind> = K extends keyof ForgeItemsSections ? NonNullable<ForgeItemsSections[K]> : never;

export type ForgeItemsRegistry = { readonly [K in ForgeKind]: ForgeItems<SectionOf<K>> | undefined };

export const FORGE_ITEM_SOURCES = { github: githubItems, git: undefined } satisfies ForgeItemsRegistry;

/** Every forge item source with the kind whose `items` section sets it up. */
function entries(registry: ForgeItemsRegistry): [ForgeKind, ForgeItems<unknown>][] {
  return (Object.entries(registry) as [ForgeKind, ForgeItems<unknown> | undefined][]).flatMap(([k, items]) => (items ? [[k, items]] : []));
}

/** The source parts of the item keys forge sources own (`github`). */
export function forgeItemSourceNames(registry: ForgeItemsRegistry = FORGE_ITEM_SOURCES): string[] {
  return entries(registry).map(([, items]) => items.source);
}

/** The forge item sources `sections` (main's `items`) sets up, each with its key's source part. */
export function openForgeItemSources(
  sections: ForgeItemsSections,
  input: Omit<ForgeItemsInput<unknown>, 'config'>,
  registry: ForgeItemsRegistry = FORGE_ITEM_SOURCES,
): [string, ForgeItemSource][] {
  // The config schema parsed each section under its kind, as that kind's source reads it.
  const byKind = sections as Partial<Record<ForgeKind, unknown>>;
  return entries(registry).flatMap(([kind, items]) => {
    const config = byKind[kind];
    return config === undefined ? [] : [[items.source, items.open({ ...input, config })]];
  });
}

/** The refusal for an item of a forge source main's config does not set up; undefined for a source no forge owns. */
export function forgeItemsNotConfigured(
  source: string,
  item: string,
  registry: ForgeItemsRegistry = FORGE_ITEM_SOURCES,
): Refusal | undefined {
  return entries(registry)
    .find(([, items]) => items.source === source)?.[1]
    .notConfigured(item);
}
