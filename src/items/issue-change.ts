// `abcd items add --github` and `abcd items close github:issue:<n>`: GitHub issues are items on
// GitHub, so these change the issue itself (under abcd's App token, as a lane would), not a
// file on main. A close takes the item's claim first, so it never closes an issue a lane is
// building; the claim is released once the issue is closed, the closed issue being the done mark.
import { formatItem, type ItemKey } from '../records/item.js';
import { UsageError } from '../core/refusals.js';
import { resolveMain } from '../claims/main-branch.js';
import { reserve } from '../claims/reserve.js';
import { stepClaim } from '../claims/renew.js';
import { readRepoConfig } from '../repo/config.js';
import type { Repo } from '../repo/repo.js';
import { readSnapshot } from '../repo/snapshot.js';
import { openItemSources, type ItemSources } from './sources.js';

/** The item sources main's `.abcd/config.json` sets up, read from main as the remote has it now. */
async function sourcesOnMain(repo: Repo): Promise<ItemSources> {
  const main = await resolveMain(repo);
  const tip = await main.tipIn(await readSnapshot(repo, [main.fetchSpec]));
  return openItemSources(repo, await readRepoConfig(repo.git, tip));
}

/** Opens a ready issue; its number is GitHub's to give, so there is no slug. */
export async function addIssue(
  repo: Repo,
  input: { title: string; body: string; dependsOn: readonly number[] },
): Promise<{ item: string; key: string; url: string | null }> {
  const sources = await sourcesOnMain(repo);
  const opened = await sources.github().openItem(input);
  return { item: formatItem(opened.key), key: formatItem(opened.key), url: opened.url ?? null };
}

/** Closes the issue as done, under its claim; false when it was closed already. */
export async function closeIssueItem(repo: Repo, item: ItemKey): Promise<{ item: string; key: string; changed: boolean }> {
  if (item.source !== 'github') throw new Error(`closeIssueItem of ${formatItem(item)}`);
  const sources = await sourcesOnMain(repo);
  const source = sources.of(item);
  if (source.source !== 'github') {
    throw new UsageError(`${formatItem(item)} is no GitHub issue item.`, 'item-source', {
      item: formatItem(item),
      source: item.source,
      reason: 'bad-key',
    });
  }
  await reserve(repo, { item, waitMs: 0, reopen: true, note: 'abcd items close' });
  try {
    const changed = await sources.github().closeItem(item);
    return { item: formatItem(item), key: formatItem(item), changed };
  } finally {
    await stepClaim(repo, { item, state: 'released' });
  }
}
