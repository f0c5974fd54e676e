// `abcd items add <slug>` and `abcd items close <item>`: the arguments read and checked here,
// the change landed by src/land/item-change.ts through the same queue as `abcd land`.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { GlobalArgs, Result } from './command.js';
import type { Deps } from '../core/deps.js';
import { UsageError } from '../core/refusals.js';
import { durationArg, itemArg } from './args.js';
import type { ItemKey } from '../records/item.js';
import { machineGate } from './commands/land.js';

// add and close wait in the land queue for at most this long unless told otherwise, as land does.
const DEFAULT_WAIT_MS = 30 * 60_000;
// The body is one item's page; the item file as a whole is held to the same bound when read.
const MAX_BODY_BYTES = 60 * 1024;

export async function runItemChange(args: Record<string, unknown> & GlobalArgs, deps: Deps): Promise<Result> {
  const action = args.action === 'add' ? 'add' : 'close';
  if (action === 'add' && args.github === true) return addGithubIssue(args, deps);
  const item = itemArg(args.item);
  if (action === 'close' && item.source === 'github') return closeGithubIssue(args, item, deps);
  const waitMs = durationArg(args.wait, '--wait', DEFAULT_WAIT_MS);
  if (action === 'close' || args.github !== undefined) {
    for (const o of action === 'close' ? (['title', 'from-file', 'depends-on', 'github'] as const) : (['github'] as const)) {
      if (args[o] !== undefined) throw new UsageError(`--${o} does not go with abcd items ${action} of a local item.`, 'argument');
    }
  }
  const [{ openRepo }, change] = await Promise.all([import('../repo/repo.js'), import('../land/item-change.js')]);
  if (action === 'add' && typeof args.title !== 'string') {
    throw new UsageError('abcd items add needs --title "<one line>" (the body comes from --from-file).', 'title', { reason: 'missing' });
  }
  const input =
    action === 'add'
      ? {
          item,
          title: change.checkTitle(String(args.title)),
          body: await readBody(args['from-file'], deps.cwd),
          dependsOn: dependsOnArg(args['depends-on']),
          waitMs,
        }
      : undefined;
  const repo = await openRepo(deps);
  const gate = await machineGate(deps);
  const r = input ? await change.addItem(repo, input, gate) : await change.closeItem(repo, { item, waitMs }, gate);
  const landed = r.land ? ` on ${r.land.main} at ${r.land.tip.slice(0, 12)} through the queue` : '';
  const text =
    action === 'add'
      ? `added ${r.item} (${r.path})${landed}; it is ready`
      : r.changed
        ? `closed ${r.item} (${r.path} status: done)${landed}`
        : `${r.item} is done already: nothing to close`;
  const { land, ...rest } = r;
  return {
    json: { action, ...rest, main: land?.main ?? null, tip: land?.tip ?? null, branch: land?.branch ?? null, github: land?.github ?? null },
    text,
  };
}

/** `abcd items add --github --title t`: a new labelled issue; GitHub numbers it, so no slug. */
async function addGithubIssue(args: Record<string, unknown> & GlobalArgs, deps: Deps): Promise<Result> {
  if (args.item !== undefined) {
    throw new UsageError('abcd items add --github takes no slug: GitHub numbers the issue. Drop the name.', 'argument');
  }
  if (args.wait !== undefined) throw new UsageError('--wait is for items that land through the queue; an issue opens at once.', 'argument');
  if (typeof args.title !== 'string') {
    throw new UsageError('abcd items add --github needs --title "<one line>".', 'title', { reason: 'missing' });
  }
  const [{ openRepo }, { checkTitle }, { addIssue }] = await Promise.all([
    import('../repo/repo.js'),
    import('../land/item-change.js'),
    import('../items/issue-change.js'),
  ]);
  const input = {
    title: checkTitle(args.title),
    body: await readBody(args['from-file'], deps.cwd),
    dependsOn: issueNumbersArg(args['depends-on']),
  };
  const r = await addIssue(await openRepo(deps), input);
  return { json: { action: 'add', ...r, changed: true }, text: `opened ${r.item}${r.url ? ` (${r.url})` : ''}; it is ready` };
}

async function closeGithubIssue(args: Record<string, unknown> & GlobalArgs, item: ItemKey, deps: Deps): Promise<Result> {
  for (const o of ['title', 'from-file', 'depends-on', 'wait'] as const) {
    if (args[o] !== undefined) throw new UsageError(`--${o} is not for abcd items close of an issue.`, 'argument');
  }
  const [{ openRepo }, { closeIssueItem }] = await Promise.all([import('../repo/repo.js'), import('../items/issue-change.js')]);
  const r = await closeIssueItem(await openRepo(deps), item);
  return {
    json: { action: 'close', ...r },
    text: r.changed ? `closed ${r.item} as done` : `${r.item} is closed already: nothing to close`,
  };
}

/** `--depends-on 12,#13` or `github:issue:12`: the issues a new issue waits on. */
function issueNumbersArg(value: unknown): number[] {
  if (value === undefined) return [];
  return [
    ...new Set(
      String(value)
        .split(',')
        .map((p) => {
          const m = /^\s*(?:#|github:issue:)?([1-9]\d{0,8})\s*$/.exec(p);
          if (!m) {
            throw new UsageError(`--depends-on names "${p.trim().slice(0, 40)}", which is no issue number (write 12,13 or #12).`, 'item', {
              item: p.trim().slice(0, 40),
              reason: 'not an issue number',
            });
          }
          return Number(m[1]);
        }),
    ),
  ];
}

function dependsOnArg(value: unknown) {
  if (value === undefined) return [];
  const parts = String(value)
    .split(',')
    .map((p) => p.trim());
  if (parts.some((p) => p === '')) {
    throw new UsageError(
      `--depends-on "${String(value).slice(0, 60)}" has an empty name; write slugs separated by commas (setup,api).`,
      'item',
      {
        item: String(value).slice(0, 60),
        reason: 'empty name in --depends-on',
      },
    );
  }
  return [...new Set(parts)].map((p) => itemArg(p));
}

async function readBody(path: unknown, cwd: string): Promise<string> {
  if (path === undefined) return '';
  if (typeof path !== 'string' || path === '') throw new UsageError('--from-file needs a file name.', 'argument');
  const full = resolve(cwd, path);
  const bytes = await readFile(full).catch((e: NodeJS.ErrnoException) => {
    throw new UsageError(`--from-file ${path}: cannot read it (${e.code ?? e.message}).`, 'path', { path });
  });
  if (bytes.length > MAX_BODY_BYTES) {
    throw new UsageError(`--from-file ${path} is ${bytes.length} bytes, over ${MAX_BODY_BYTES}: an item is a page of text.`, 'path', {
      path,
    });
  }
  const text = bytes.toString('utf8');
  if (text.includes('\0') || Buffer.from(text, 'utf8').compare(bytes) !== 0) {
    throw new UsageError(`--from-file ${path} is not UTF-8 text.`, 'path', { path });
  }
  return text;
}
