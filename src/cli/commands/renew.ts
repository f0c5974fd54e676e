// `abcd renew`: extend a claim's expiry.
import type { Command } from '../command.js';
import { itemArg, ttlArg } from '../args.js';
import { formatInstant, jsonInstant } from '../render.js';
import { withClaimTip } from './reserve.js';
import { openThenLoad } from '../open-early.js';

export const renew: Command = {
  command: 'renew <item>',
  describe: "write a fresh generation of this session's claim, extending its expiry",
  refusals: [
    'not-holder',
    'claim-ended',
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
  agentUse: 'keep the claim alive during long work, well before it expires',
  examples: [['abcd renew fix-login --ttl 1h', 'keep fix-login for another hour']],
  builder: (y) =>
    y
      .positional('item', { type: 'string', describe: 'the item this session holds' })
      .option('ttl', { type: 'string', describe: 'new time to live (default: the claim’s current ttl)' }),
  async run(args, deps) {
    const input = { item: itemArg(args.item), ttlMs: ttlArg(args.ttl), state: 'held' as const };
    const { repo, domain } = await openThenLoad(deps, () => import('../../claims/renew.js'), { writes: true });
    const r = await domain.stepClaim(repo, input);
    return {
      json: { ...withClaimTip(r), expiresAt: jsonInstant(r.expiresAt) },
      text: `renewed ${r.item} (generation ${r.gen}) until ${formatInstant(r.expiresAt)}`,
    };
  },
};
