import type { Command } from '../command.js';
import { formatDuration, formatInstant, inOrAgo, paint, table } from '../render.js';
import type { StatusData } from '../../verbs/status.js';

export const status: Command = {
  command: 'status',
  describe: "everyone's claims (holder, age, expiry, stale) and refused records, in one round trip",
  examples: [
    ['abcd status', 'a table of every claim'],
    ['abcd status --json', 'the same as one stable JSON object'],
  ],
  builder: (y) => y,
  async run(_args, deps) {
    const [{ openRepo }, { status: run }] = await Promise.all([import('../../verbs/repo.js'), import('../../verbs/status.js')]);
    const s = await run(await openRepo(deps));
    return { json: toJson(s), text: toText(s, deps.out.isTTY) };
  },
};

function toJson(s: StatusData): Record<string, unknown> {
  return {
    remote: s.remote,
    readAt: formatInstant(s.readAt),
    session: s.session,
    claims: s.claims.map((c) => ({
      ...c,
      at: formatInstant(c.at),
      expiresAt: formatInstant(c.expiresAt),
      ...(c.takeableAt !== undefined ? { takeableAt: formatInstant(c.takeableAt) } : {}),
    })),
    settings: s.settings,
    refused: s.refused,
    pruned: s.pruned,
  };
}

function toText(s: StatusData, tty: boolean): string {
  const out: string[] = [];
  if (s.claims.length === 0) out.push(`no claims on ${s.remote}`);
  else {
    const rows = s.claims.map((c) => [
      c.mine ? paint(tty, 'bold', c.item) : c.item,
      c.holder,
      c.state,
      formatDuration(c.ageMs),
      c.state === 'held' ? inOrAgo(c.expiresInMs) : '-',
      c.stale ? paint(tty, 'yellow', c.takeableAt ? `stale, takeable ${inOrAgo(c.takeableAt - s.readAt)}` : 'stale') : '',
      c.note ?? '',
    ]);
    out.push(table(['ITEM', 'HOLDER', 'STATE', 'AGE', 'EXPIRES', 'STALE', 'NOTE'], rows));
  }
  for (const r of s.refused) out.push(paint(tty, 'red', `refused ${r.ref}: ${r.message}`));
  if (s.pruned) out.push(`pruned ${s.pruned} released or expired record(s)`);
  return out.join('\n');
}
