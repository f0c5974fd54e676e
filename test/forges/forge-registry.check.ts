// Compiled, never run, by test/forge-registry.test.ts (and by the type check of the whole
// tree): the forge registries are exhaustive and a forge is asked, never told apart. Every
// expected error below must still err, so a check that stops biting fails too.
import type { Forge, ForgeKind } from '../../src/forges/forge.js';
import { gitProvider } from '../../src/forges/git/provider.js';
import { FORGE_ITEM_SOURCES, type ForgeItemsRegistry } from '../../src/forges/item-sources.js';
import { FORGE_PROVIDERS, type ForgeRegistry } from '../../src/forges/registry.js';

// A registry that leaves a kind out does not compile.
// @ts-expect-error github has no provider
export const missing: ForgeRegistry = { git: gitProvider };

// A provider filed under another kind does not compile.
// @ts-expect-error the plain git remote's provider is no GitHub provider
export const misfiled: ForgeRegistry = { git: gitProvider, github: gitProvider };

// A kind added to ForgeKind ('gitlab' here) without a provider fails the registry as it stands.
// @ts-expect-error FORGE_PROVIDERS has no gitlab
export const wider: { readonly [K in ForgeKind | 'gitlab']: unknown } = FORGE_PROVIDERS;

// The same for the forges' item sources: a kind must be there, if only as undefined.
// @ts-expect-error FORGE_ITEM_SOURCES has no gitlab
export const widerItems: { readonly [K in ForgeKind | 'gitlab']: unknown } = FORGE_ITEM_SOURCES;
// @ts-expect-error the plain git remote's entry is missing
export const missingItems: ForgeItemsRegistry = { github: FORGE_ITEM_SOURCES.github };

// Outside src/forges a forge says what to do; it has no kind to test.
export function kindOf(forge: Forge): unknown {
  // @ts-expect-error a Forge has no kind
  return forge.kind;
}
