// The forge providers abcd knows, one per ForgeKind: the type below fails the build when a kind
// has no provider. Code outside src/forges finds a remote's forge here and never asks which it is.
import { gitProvider } from './git/provider.js';
import type { Forge, ForgeKind, ForgeProvider } from './forge.js';
import { githubProvider } from './github/provider.js';

export type ForgeRegistry = { readonly [K in ForgeKind]: ForgeProvider<K> };

// In the order detection asks them: the plain git remote last, as it takes any URL.
export const FORGE_PROVIDERS = { github: githubProvider, git: gitProvider } satisfies ForgeRegistry;

/** The forge `remoteUrl` is on; a plain git remote when no other provider takes it. */
export function detectForge(
  remoteUrl: string | undefined,
  enterpriseHosts: readonly string[],
  registry: ForgeRegistry = FORGE_PROVIDERS,
): Forge {
  for (const provider of Object.values(registry)) {
    const forge = provider.detect(remoteUrl, { enterpriseHosts });
    if (forge) return forge;
  }
  throw new Error(`no forge provider took the remote ${remoteUrl ?? '(none)'}, and the plain git remote takes any`);
}
