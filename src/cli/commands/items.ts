// `abcd items`: the items, what is ready and what waits on what.
import type { Command } from '../command.js';
import { formatInstant, inOrAgo, table } from '../render.js';
import { sanitizeLine } from '../../core/sanitize.js';
import type { ItemsData, ItemView } from '../../items/items.js';

// Titles are the item file's text: one line, cut to keep the table on a terminal.
const TITLE_CHARS = 60;

export const items: Command = {
  command: 'items',
  describe:
    'the items (files under .abcd/items/ on main, labelled GitHub issues) with status, readiness (ready, blocked, held, done) and claim',
  refusals: [
    'item-invalid',
    'git-failed',
    'forge-rejected',
    'deadline',
    'record-too-new',
    'unsafe-environment',
    'remote-unavailable',
    'record-invalid',
  ],
  usesRemote: true,
  examples: [
    ['abcd items', 'a table of every item'],
    ['abcd items --json', 'the same as one JSON object; unreadable item files under "refused"'],
  ],
  builder: (y) => y,
  async run(_args, deps) {
    const [{ openRepo }, { listItems }] = await Promise.all([import('../../repo/repo.js'), import('../../items/items.js')]);
    const r = await listItems(await openRepo(deps));
    return {
      json: {
        main: r.main,
        mainTip: r.mainTip,
        items: r.items.map((i) => ({
          ...i,
          addedAt: i.addedAt === null ? null : formatInstant(i.addedAt),
          claim: i.claim ? { ...i.claim, expiresAt: formatInstant(i.claim.expiresAt) } : null,
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
