import type { Command } from '../command.js';
import { itemArg } from '../args.js';
import { jsonInstant } from '../render.js';
import { withClaimTip } from './reserve.js';

export const release: Command = {
  command: 'release <item>',
  describe: "give up this session's claim on an item (writes a released generation)",
  refusals: ['not-holder', 'fenced', 'conflict', 'remote-unavailable', 'record-invalid', 'record-too-new', 'unsafe-environment'],
  usesRemote: true,
  agentUse: 'give the item up when you stop without landing',
  examples: [['abcd release fix-login', 'let others reserve fix-login']],
  builder: (y) => y.positional('item', { type: 'string', describe: 'the item this session holds' }),
  async run(args, deps) {
    const input = { item: itemArg(args.item), state: 'released' as const };
    const [{ openRepo }, { stepClaim }] = await Promise.all([import('../../verbs/repo.js'), import('../../verbs/renew.js')]);
    const r = await stepClaim(await openRepo(deps), input);
    const json = { ...withClaimTip(r), expiresAt: jsonInstant(r.expiresAt) };
    const text = !r.written
      ? `nothing to release: ${r.item} has landed and its claim stays done (generation ${r.gen})`
      : r.state === 'done'
        ? `released ${r.item} (generation ${r.gen}); it had landed, so its claim is done again`
        : `released ${r.item} (generation ${r.gen})`;
    return { json, text };
  },
};
