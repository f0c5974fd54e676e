import type { Command } from '../command.js';
import { itemArg } from '../args.js';

export const release: Command = {
  command: 'release <item>',
  describe: "give up this session's claim on an item (writes a released generation)",
  examples: [['abcd release fix-login', 'let others reserve fix-login']],
  builder: (y) => y.positional('item', { type: 'string', describe: 'the item this session holds' }),
  async run(args, deps) {
    const input = { item: itemArg(args.item), state: 'released' as const };
    const [{ openRepo }, { stepClaim }] = await Promise.all([import('../../verbs/repo.js'), import('../../verbs/renew.js')]);
    const r = await stepClaim(await openRepo(deps), input);
    const { expiresAt: _unused, ...json } = r;
    return { json, text: `released ${r.item} (generation ${r.gen})` };
  },
};
