// `abcd reserve`: claim an item.
import type { Command } from '../command.js';
import { durationArg, itemArg, noteArg, ttlArg } from '../args.js';
import { formatDuration, formatInstant, jsonInstant } from '../render.js';

export const reserve: Command = {
  command: 'reserve <item>',
  describe: 'take the claim on an item (refuses, naming the holder, if another session holds it)',
  refusals: [
    'held',
    'cap-reached',
    'takeover-too-soon',
    'landed',
    'clock-skewed',
    'git-failed',
    'conflict',
    'forge-rejected',
    'deadline',
    'fenced',
    'record-too-new',
    'unsafe-environment',
    'remote-unavailable',
    'record-invalid',
  ],
  usesRemote: true,
  agentUse: 'first: take the item you will work on (exit 3 held: pick another)',
  examples: [
    ['abcd reserve fix-login --ttl 45m --note "login bug"', 'claim fix-login for 45 minutes'],
    ['abcd reserve github:issue:123 --wait 5m', 'wait up to 5 minutes for the holder to release it'],
  ],
  builder: (y) =>
    y
      .positional('item', { type: 'string', describe: 'a slug (fix-login) or a key (github:issue:123)' })
      .option('ttl', { type: 'string', describe: 'how long the claim lives without renewal (default: the default-ttl setting)' })
      .option('wait', { type: 'string', describe: 'how long to wait for a held item (e.g. 90s); default 0' })
      .option('note', { type: 'string', describe: 'a short note others see in abcd status' })
      .option('reopen', { type: 'boolean', default: false, describe: 'reserve an item whose work has already landed' }),
  async run(args, deps) {
    const input = {
      item: itemArg(args.item),
      ttlMs: ttlArg(args.ttl),
      waitMs: durationArg(args.wait, '--wait', 0),
      ...(args.note !== undefined ? { note: noteArg(args.note) } : {}),
      reopen: Boolean(args.reopen),
    };
    const [{ openRepo }, { reserve: run }] = await Promise.all([import('../../repo/repo.js'), import('../../claims/reserve.js')]);
    const r = await run(await openRepo(deps), input);
    const how = r.tookOverFrom
      ? ` (taken over from ${r.tookOverFrom})`
      : r.renewed
        ? ' (renewed)'
        : r.reopened
          ? ' (it had landed: reopened)'
          : '';
    return {
      json: { ...withClaimTip(r), expiresAt: jsonInstant(r.expiresAt), tookOverFrom: r.tookOverFrom ?? null },
      text: `reserved ${r.item}${how} until ${formatInstant(r.expiresAt)} (${formatDuration(r.ttlMs)}) as ${r.holder}`,
    };
  },
};

/** The claim's commit is `claimTip` in every answer (ADR 0030). */
export function withClaimTip<T extends { tip: string | null }>(r: T): Omit<T, 'tip'> & { claimTip: T['tip'] } {
  const { tip, ...rest } = r;
  return { ...rest, claimTip: tip };
}
