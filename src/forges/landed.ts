// The pull request a land went through, read from the result's forge part (ForgeLanded) whatever
// forge gave it: for the land's own line of text and for the item's source, which names it when
// it marks the item done. One reader per forge part; a part without one fails the build.
import type { ForgeLanded } from './forge.js';

export interface LandedPullRequest {
  number: number;
  url?: string;
  /** How the forge merged it (GitHub: merge-queue, merge, already-merged). */
  via: string;
  /** In the forge's words: "pull request #7". */
  said: string;
}

const READERS: { readonly [K in keyof ForgeLanded]-?: (part: NonNullable<ForgeLanded[K]>) => LandedPullRequest } = {
  github: (p) => ({ number: p.number, ...(p.url ? { url: p.url } : {}), via: p.via, said: `pull request #${p.number}` }),
};

/** The pull request `landed` went through; undefined for a land without one (a plain git remote's). */
export function landedPullRequest(landed: ForgeLanded): LandedPullRequest | undefined {
  for (const key of Object.keys(READERS) as (keyof ForgeLanded)[]) {
    const part = landed[key];
    if (part) return READERS[key](part);
  }
  return undefined;
}
