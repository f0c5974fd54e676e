// What a forge is to abcd: the interface every forge provider implements (GitHub in github/,
// a plain git remote in git/), found through the registries in registry.ts and item-sources.ts.
// Code outside src/forges holds a Forge and asks it what to do; it never asks which forge it holds.
import type { Deps } from '../core/deps.js';
import type { Refusal } from '../core/refusals.js';
import type { NetworkAuth } from '../records/store.js';
import type { TokenSource } from './github/credentials/token-source.js';
import type { ForgeItemSource } from './item-source.js';

/** Every forge abcd knows. A new member fails the build until both registries handle it. */
export type ForgeKind = 'git' | 'github';

/** abcd's own token on a forge (an App token on GitHub), fresh on every `get`. */
export type ForgeTokens = TokenSource;

/** What git's network calls and the forge's API take, found once when the repository opens. */
export interface ForgeCredentials {
  /** abcd's own token, where the person set one up (abcd setup-app). */
  tokens?: ForgeTokens;
  /** How each network git call authenticates; absent: git's own credentials apply. */
  auth?: NetworkAuth;
}

/**
 * The forge-specific part of `abcd land`'s result, as the JSON contract names it: one optional
 * field per forge that adds one. A plain git remote adds none.
 */
export interface ForgeLanded {
  /** GitHub: the pull request, how it merged, and the window the claim's tip does not fence. */
  github?: { number: number; url?: string; via: string; fenceWindowMs: number };
}

/** The forge a remote is on, bound to that remote. */
export interface Forge {
  /** The forge's own name for the remote, fit for a message: "github.com/o/r", "a plain git remote". */
  readonly name: string;
  /** abcd's credentials here (none on a plain git remote). */
  credentials(deps: Deps): Promise<ForgeCredentials>;
  /** How `land` brings work onto main here. */
  readonly landing: ForgeLanding;
}

/**
 * The two ways onto main abcd has: its own queue as records and a fenced push of main (any git
 * remote), or a pull request the forge merges (land/strategy-pull-request.ts does the claim's
 * part; the forge its own).
 */
export type ForgeLanding = { through: 'records-queue' } | { through: 'pull-request'; pullRequests: PullRequestLanding };

/** A forge's part of landing through a pull request. */
export interface PullRequestLanding {
  /** Refusals that need no read of the remote, before anything else (no App token set up). */
  precheck(o: { tokens?: ForgeTokens }): void;
  /** What the forge would refuse about the work branch's push, said before it is pushed. */
  beforePush(o: { changedPaths: readonly string[]; configDir: string }): Promise<void>;
  /** Opens or updates the work branch's pull request and merges it, fenced by the claim's tip. */
  merge(o: PullRequestMerge): Promise<PullRequestMerged>;
}

export interface PullRequestMerge {
  deps: Deps;
  tokens?: ForgeTokens;
  /** The work branch on the remote, and the branch it lands on. */
  branch: string;
  base: string;
  title: string;
  body: string;
  /** The work branch head pushed under the claim: the only head the forge may merge. */
  expectedHead: string;
  /** The claim tip the caller holds, and a read of the remote's (called immediately before the act). */
  claimTip: string;
  readClaimTip: () => Promise<string>;
  /** The refusal to throw when the claim's tip moved. */
  fenced: (foundTip: string) => Refusal;
  /** The instant (milliseconds on deps.clock) by which the pull request must have merged. */
  deadlineMs: number;
  signal?: AbortSignal;
  /** How the forge merges where the caller may choose (no merge queue). */
  mergeMethod?: 'merge' | 'squash' | 'rebase';
}

export interface PullRequestMerged {
  /** The commit on the base branch that carries the work. */
  mergeCommit: string;
  /** The pull request in words, for the claim's done commit: "pull request #7". */
  said: string;
  /** The result's forge-specific part. */
  landed: ForgeLanded;
}

/** Where a provider's item source is set up: `items.<section>` in `.abcd/config.json` on main. */
export interface ForgeItemsInput<C> {
  /** That section, as the config schema parsed it. */
  config: C;
  /** The repository's remote, its credentials and abcd's folder in the clone. */
  forge: Forge;
  tokens?: ForgeTokens;
  deps: Deps;
  commonDir: string;
  /** The source's forge calls end by this instant when given. */
  deadlineAt?: number;
}

/** Items a forge holds (GitHub's issues), beside the files under .abcd/items/. */
export interface ForgeItems<C> {
  /** The source part of its item keys (`github` in github:issue:7). */
  readonly source: string;
  open(input: ForgeItemsInput<C>): ForgeItemSource;
  /** The refusal for an item of this source when main's config does not set the source up. */
  notConfigured(item: string): Refusal;
}

/**
 * One forge's provider: how to recognise a remote on it. What a remote on it does is the Forge
 * it returns; the items it holds, if any, are in item-sources.ts (loaded only by the verbs that
 * read items).
 */
export interface ForgeProvider<K extends ForgeKind> {
  readonly kind: K;
  /** The forge `remoteUrl` is on, or undefined when it is not this one. */
  detect(remoteUrl: string | undefined, o: { enterpriseHosts: readonly string[] }): Forge | undefined;
}
