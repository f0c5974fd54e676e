// `abcd items`: the items, what is ready and what waits on what; `items add` and `items close`
// change a local item through the land queue (items-change.ts).
import type { Command } from '../command.js';
import { inOrAgo, jsonInstant, table } from '../render.js';
import { sanitizeLine } from '../../core/sanitize.js';
import { UsageError } from '../../core/refusals.js';
import type { ItemsData, ItemView } from '../../items/items.js';

// Titles are the item file's text: one line, cut to keep the table on a terminal.
const TITLE_CHARS = 60;

export const items: Command = {
  command: 'items [action] [item]',
  describe: 'the items (files under .abcd/items/ on main, labelled GitHub issues) with status, readiness and claim; add or close one',
  refusals: [
    'item-invalid',
    'git-failed',
    'forge-rejected',
    'deadline',
    'record-too-new',
    'unsafe-environment',
    'remote-unavailable',
    'record-invalid',
    'held',
    'cap-reached',
    'takeover-too-soon',
    'landed',
    'clock-skewed',
    'not-holder',
    'claim-ended',
    'nothing-to-land',
    'branch-refused',
    'conflict',
    'check-failed',
    'secret-in-change',
    'fenced',
    'interrupted',
  ],
  usesRemote: true,
  examples: [
    ['abcd items', 'a table of every item'],
    ['abcd items --json', 'the same as one JSON object; unreadable item files under "refused"'],
    ['abcd items add fix-login --title "Fix the login" --from-file notes.md --depends-on setup', 'land a new item file through the queue'],
    ['abcd items close fix-login', 'land status: done for an item through the queue'],
    ['abcd items add --github --title "Fix the login" --depends-on 12', 'open a ready GitHub issue instead'],
    ['abcd items close github:issue:12', 'close the issue as done'],
  ],
  builder: (y) =>
    y
      .positional('action', { choices: ['add', 'close'] as const, describe: 'add an item, or close one (omit to list the items)' })
      .positional('item', { type: 'string', describe: 'the item to add (a new slug) or close' })
      .option('title', { type: 'string', describe: 'add: the one-line title' })
      .option('from-file', { type: 'string', describe: 'add: a file whose text is the body' })
      .option('depends-on', {
        type: 'string',
        describe: 'add: the items (or, with --github, issue numbers) that must be done first, comma-separated',
      })
      .option('github', { type: 'boolean', describe: 'add: open a labelled GitHub issue (items.github) instead of a file on main' })
      .option('wait', { type: 'string', describe: 'add, close: how long to wait for the land queue (default 30m)' }),
  async run(args, deps) {
    if (args.action !== undefined) {
      const { runItemChange } = await import('../items-change.js');
      return runItemChange(args, deps);
    }
    for (const o of ['item', 'title', 'from-file', 'depends-on', 'wait', 'github'] as const) {
      if (args[o] !== undefined) {
        throw new UsageError(
          `${o === 'item' ? 'an item' : `--${o}`} is for abcd items add or close; abcd items alone lists the items.`,
          'argument',
        );
      }
    }
    const [{ openRepo }, { listItems }] = await Promise.all([import('../../repo/repo.js'), import('../../items/items.js')]);
    const r = await listItems(await openRepo(deps));
    return {
      json: {
        main: r.main,
        mainTip: r.mainTip,
        items: r.items.map((i) => ({
          ...i,
          addedAt: i.addedAt === null ? null : jsonInstant(i.addedAt),
          claim: i.claim ? { ...i.claim, expiresAt: jsonInstant(i.claim.expiresAt) } : null,
        })),
        refused: r.refused,
      },
      text: toText(r, deps.clock.now()),
    };
  },
};

function readinessText(i: ItemView, now: number): string {
  if (i.readiness === 'held' && i.claim) return `held by ${sanitizeLine(i.claim.holder)} (expires ${inOrAgo(i.claim.expiresAt - now)})`;
  if (i.readiness === 'blocked') return `blocked by ${i.blockedBy.map((k) => k.replace(/^local:item:/, '')).join(', ')}`;
  if (i.readiness === 'pending') return 'pending request';
  return i.readiness;
}

function toText(r: ItemsData, now: number): string {
  const head =
    `${r.items.length} item(s) on ${r.main} at ${r.mainTip.slice(0, 12)}` + (r.refused.length ? `, ${r.refused.length} refused` : '');
  const rows = r.items.map((i) => [i.slug, i.status, readinessText(i, now), sanitizeLine(i.title, TITLE_CHARS)]);
  const lines = [head];
  if (rows.length) lines.push(table(['ITEM', 'STATUS', 'READINESS', 'TITLE'], rows));
  else if (!r.refused.length)
    lines.push('no items yet: add .abcd/items/<slug>.md files on main (front matter title, status: ready, depends_on).');
  if (r.refused.length) lines.push('refused (fix these files on main):', ...r.refused.map((f) => `  ${sanitizeLine(f.message, 400)}`));
  return lines.join('\n');
}
