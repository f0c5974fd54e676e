// `abcd items add` and `abcd items close` for local items: a change to `.abcd/items/<slug>.md`
// lands like any other work. The item's claim is taken, one commit on main's tip (made from
// objects alone, never touching the person's checkout or index) goes on a fresh work branch,
// and `land` takes it through the queue and the checks. Nothing pushes main directly, so a
// protected main branch that only takes landings still gets the item.
import { randomBytes } from '../core/builtins.js';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { formatItem, shortItem, type ItemKey } from '../records/item.js';
import { UsageError, isRefusal } from '../core/refusals.js';
import { sanitizeLine } from '../core/sanitize.js';
import { resolveMain } from '../claims/main-branch.js';
import { reserve } from '../claims/reserve.js';
import { stepClaim } from '../claims/renew.js';
import { itemPath } from '../items/item-path.js';
import { markDone, parseItemFile, renderItemFile } from '../items/item-file.js';
import { MAX_ITEM_BYTES } from '../items/local-source.js';
import type { Repo } from '../repo/repo.js';
import { readSnapshot } from '../repo/snapshot.js';
import { land, type GateRunner, type LandResult } from './land.js';

// A title is one line of a table; longer is a paragraph, which belongs in the body.
export const MAX_TITLE_CHARS = 200;
// The commit is abcd's own, from objects: it must not sign, prompt or run hooks.

export interface AddItemInput {
  item: ItemKey;
  title: string;
  body: string;
  dependsOn: readonly ItemKey[];
  waitMs: number;
}

export interface ItemChangeResult {
  item: string;
  key: string;
  path: string;
  /** False: nothing to change (close of an item already done). */
  changed: boolean;
  land?: LandResult;
}

/** Refuses a title abcd would have to mangle: empty, several lines, control characters, too long. */
export function checkTitle(title: string): string {
  const t = title.trim();
  const why =
    t === ''
      ? 'it is empty'
      : t.length > MAX_TITLE_CHARS
        ? `it is ${t.length} characters long, over ${MAX_TITLE_CHARS}`
        : // eslint-disable-next-line no-control-regex -- control characters are what is refused
          /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(t)
          ? 'it has a line break or a control character'
          : undefined;
  if (why) {
    throw new UsageError(
      `--title "${sanitizeLine(t, 60)}" cannot be an item's title: ${why}. Give one line of text (the details go in --from-file).`,
      'title',
      { reason: why },
    );
  }
  return t;
}

function requireLocal(item: ItemKey, verb: 'add' | 'close'): void {
  if (item.source === 'local' && item.kind === 'item') return;
  throw new UsageError(
    `abcd items ${verb} ${formatItem(item)}: only local items (a slug such as fix-login) are files abcd ${verb === 'add' ? 'adds' : 'closes'} this way.`,
    'item',
    { item: formatItem(item), reason: 'not-local' },
  );
}

/** Adds `.abcd/items/<slug>.md` to main through the queue; the item is ready once it lands. */
export async function addItem(repo: Repo, input: AddItemInput, gate: GateRunner): Promise<ItemChangeResult> {
  requireLocal(input.item, 'add');
  const title = checkTitle(input.title);
  for (const d of input.dependsOn) requireLocal(d, 'add');
  const path = itemPath(input.item.id);
  const text = renderItemFile({ title, dependsOn: input.dependsOn.map(formatItem), body: input.body });
  if (Buffer.byteLength(text) > MAX_ITEM_BYTES) {
    throw new UsageError(
      `the item file would be ${Buffer.byteLength(text)} bytes, over ${MAX_ITEM_BYTES}: shorten the body.`,
      'item-file',
      {
        item: formatItem(input.item),
        path,
        reason: 'too-large',
      },
    );
  }
  // What abcd writes, abcd must read back: the same title and dependencies.
  const doc = parseItemFile(path, input.item, text);
  if (doc.title !== title) throw new Error(`rendered item ${path} reads back with another title`);
  const tip = await mainTip(repo);
  if (await blobAt(repo, tip, path)) {
    throw new UsageError(
      `${shortItem(input.item)} is already an item on main (${path}); pick another slug, or edit that file.`,
      'item-file',
      {
        item: formatItem(input.item),
        path,
        reason: 'exists',
      },
    );
  }
  const missing: string[] = [];
  for (const d of input.dependsOn) if (!(await blobAt(repo, tip, itemPath(d.id)))) missing.push(shortItem(d));
  if (missing.length) {
    throw new UsageError(`--depends-on names ${missing.join(', ')}, which main has no item file for; add those first.`, 'item-file', {
      item: formatItem(input.item),
      path,
      reason: 'missing-dependency',
      missing,
    });
  }
  const change = { path, text, message: `Add item ${input.item.id}`, body: `abcd items add: ${path} (ready).` };
  // --keep: the landing must not mark the new item done, and its claim ends released, not done.
  return { ...(await landChange(repo, input.item, change, { waitMs: input.waitMs, keep: true }, gate)), changed: true };
}

/** Marks a local item `status: done` on main through the queue. */
export async function closeItem(repo: Repo, input: { item: ItemKey; waitMs: number }, gate: GateRunner): Promise<ItemChangeResult> {
  requireLocal(input.item, 'close');
  const path = itemPath(input.item.id);
  const base = { item: shortItem(input.item), key: formatItem(input.item), path };
  const tip = await mainTip(repo);
  const before = await blobAt(repo, tip, path);
  if (before === undefined) {
    throw new UsageError(`there is no item ${base.item} on main (${path}): nothing to close. abcd items lists the items.`, 'no-item', {
      item: base.key,
    });
  }
  const doc = parseItemFile(path, input.item, before.toString('utf8'));
  if (doc.status === 'done') return { ...base, changed: false };
  // latin1 maps every byte to one character and back: bytes outside UTF-8 survive the rewrite.
  const text = markDone(before.toString('latin1'));
  if (text === null) {
    throw new UsageError(`${path} has no "status: ready" line abcd can rewrite; set status: done in it by hand.`, 'item-file', {
      item: base.key,
      path,
      reason: 'status-line',
    });
  }
  const change = { path, text, latin1: true, message: `Close item ${input.item.id}`, body: `abcd items close: ${path} status: done.` };
  return { ...(await landChange(repo, input.item, change, { waitMs: input.waitMs, keep: false }, gate)), changed: true };
}

interface Change {
  path: string;
  text: string;
  latin1?: boolean;
  message: string;
  body: string;
}

/** Claim, commit on main's tip, land; the claim released and the local branch gone if it fails. */
async function landChange(
  repo: Repo,
  item: ItemKey,
  change: Change,
  o: { waitMs: number; keep: boolean },
  gate: GateRunner,
): Promise<Omit<ItemChangeResult, 'changed'>> {
  // Reopen: closing an item whose earlier landing was reopened is what the person asked for.
  await reserve(repo, { item, waitMs: 0, reopen: true, note: o.keep ? 'abcd items add' : 'abcd items close' });
  const branch = `items/${o.keep ? 'add' : 'close'}-${item.id}-${randomBytes(3).toString('hex')}`;
  try {
    const tip = await mainTip(repo);
    const commit = await commitOnTip(repo, tip, change);
    await repo.git.refs.update(`refs/heads/${branch}`, commit, '');
    const landed = await land(repo, { item, branch, waitMs: o.waitMs, strategy: 'rebase', keep: o.keep }, gate);
    if (o.keep) await stepClaim(repo, { item, state: 'released' });
    return { item: shortItem(item), key: formatItem(item), path: change.path, land: landed };
  } catch (e) {
    // The land took its entry out of the queue; the claim goes too, or the item stays held for nothing.
    await stepClaim(repo, { item, state: 'released' }).catch((x: unknown) => {
      if (!isRefusal(x)) throw x;
    });
    throw e;
  } finally {
    await repo.git.refs.delete(`refs/heads/${branch}`);
  }
}

/** main's tip as the remote has it now (one fetch, the cache land reads too). */
async function mainTip(repo: Repo): Promise<string> {
  const main = await resolveMain(repo);
  return main.tipIn(await readSnapshot(repo, [main.fetchSpec]));
}

async function blobAt(repo: Repo, commit: string, path: string): Promise<Buffer | undefined> {
  return repo.git.objects.readBlobAt(commit, path);
}

/** One commit on `tip` with the file written, from objects and a private index file. */
async function commitOnTip(repo: Repo, tip: string, change: Change): Promise<string> {
  const index = join(repo.gitDir, 'abcd', `items-index-${process.pid}-${randomBytes(4).toString('hex')}`);
  const env = { GIT_INDEX_FILE: index };
  await mkdir(join(repo.gitDir, 'abcd'), { recursive: true });
  try {
    await repo.git.work.readTree(tip, { env });
    const blob = await repo.git.objects.hashObject(Buffer.from(change.text, change.latin1 ? 'latin1' : 'utf8'));
    await repo.git.work.stageBlob(change.path, blob, { env });
    const tree = await repo.git.work.writeTree({ env });
    return await repo.git.objects.mustCommitTree({ tree, parents: [tip], message: [change.message, change.body] });
  } finally {
    await rm(index, { force: true });
  }
}
