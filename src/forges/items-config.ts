// The `items` section of `.abcd/config.json`: one entry per forge whose items abcd can take,
// under the forge's kind, each schema its provider's own. repo/config.ts places the section in
// the file's one schema; item-sources.ts opens the sources the section sets up.
import { z } from 'zod';
import type { ForgeKind } from './forge.js';
import { GitHubItemsSchema } from './github/items-config.js';

export const FORGE_ITEMS_SHAPE = {
  /** GitHub issues as items, beside the files under .abcd/items/. */
  github: GitHubItemsSchema.optional(),
} satisfies { [K in ForgeKind]?: z.ZodOptional };

/** The `items` section as its schema parses it. */
export type ForgeItemsSections = { [K in keyof typeof FORGE_ITEMS_SHAPE]?: z.infer<(typeof FORGE_ITEMS_SHAPE)[K]> };
