// `abcd items add <slug>` and `abcd items close <item>`: the arguments read and checked here,
// the change landed by src/land/item-change.ts through the same queue as `abcd land`.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { GlobalArgs, Result } from './command.js';
import type { Deps } from '../core/deps.js';
import { UsageError } from '../core/refusals.js';
import { durationArg, itemArg } from './args.js';
import { machineGate } from './commands/land.js';

// add and close wait in the land queue for at most this long unless told otherwise, as land does.
const DEFAULT_WAIT_MS = 30 * 60_000;
// The body is one item's page; the item file as a whole is held to the same bound when read.
const MAX_BODY_BYTES = 60 * 1024;

export async function runItemChange(args: Record<string, unknown> & GlobalArgs, deps: Deps): Promise<Result> {
  const action = args.action === 'add' ? 'add' : 'close';
  const item = itemArg(args.item);
  const waitMs = durationArg(args.wait, '--wait', DEFAULT_WAIT_MS);
  if (action === 'close') {
    for (const o of ['title', 'from-file', 'depends-on'] as const) {
      if (args[o] !== undefined) throw new UsageError(`--${o} is for abcd items add, not close.`, 'argument');
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
