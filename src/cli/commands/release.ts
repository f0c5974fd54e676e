// `abcd release`: give a claim up.
import type { Command } from '../command.js';
import { openThenLoad } from '../open-early.js';
import { itemArg } from '../args.js';
import { jsonInstant } from '../render.js';
import { withClaimTip } from './reserve.js';
import { sanitizeLine } from '../../core/sanitize.js';

export const release: Command = {
  command: 'release <item>',
  describe: "give up this session's claim on an item (writes a released generation)",
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
  agentUse: 'give the item up when you stop without landing',
  examples: [
    ['abcd release fix-login', 'let others reserve fix-login'],
    ['abcd release fix-login --force', 'clear a claim you judge dead, or a record abcd refuses'],
  ],
  builder: (y) =>
    y.positional('item', { type: 'string', describe: 'the item this session holds' }).option('force', {
      type: 'boolean',
      describe: "clear the item's claim whoever holds it, even a record abcd cannot read (the person's call)",
    }),
  async run(args, deps) {
    const item = itemArg(args.item);
    const { repo, domain: verbs } = await openThenLoad<typeof import('../../claims/release.js') | typeof import('../../claims/renew.js')>(
      deps,
      () => (args.force ? import('../../claims/release.js') : import('../../claims/renew.js')),
      { writes: true },
    );
    if ('forceRelease' in verbs) {
      const r = await verbs.forceRelease(repo, { item });
      const was = r.replaced
        ? r.replaced.holder
          ? ` (was ${r.replaced.state} by ${sanitizeLine(r.replaced.holder)})`
          : ` (was refused: ${r.replaced.refused})`
        : '';
      const { tip, ...rest } = r;
      return {
        json: { ...rest, claimTip: tip, replaced: r.replaced ?? null },
        text: r.cleared ? `cleared ${r.item}${was}: released in generation ${r.gen}` : `${r.item} holds no live claim: nothing to clear`,
      };
    }
    const r = await verbs.stepClaim(repo, { item, state: 'released' });
    const json = { ...withClaimTip(r), expiresAt: jsonInstant(r.expiresAt), already: r.already ?? false };
    const text =
      r.state === 'done' && !r.written
        ? `nothing to release: ${r.item} has landed and its claim stays done (generation ${r.gen})`
        : r.state === 'done'
          ? `released ${r.item} (generation ${r.gen}); it had landed, so its claim is done again`
          : `released ${r.item} (generation ${r.gen}${r.already ? ', already released by this session' : ''})`;
    return { json, text };
  },
};
