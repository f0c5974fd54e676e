// `abcd push`: push the work branch under the claim.
import type { Command } from '../command.js';
import { openThenLoad } from '../open-early.js';
import { itemArg, listArg } from '../args.js';
import { formatInstant, jsonInstant } from '../render.js';

export const push: Command = {
  command: 'push <item> [branch]',
  describe: 'push the work branch (and tags) in one atomic push with a renewal of the claim',
  refusals: [
    'not-holder',
    'branch-refused',
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
  agentUse: 'publish your work branch under the claim (renews it)',
  examples: [
    ['abcd push fix-login', 'push the current branch under the claim on fix-login'],
    ['abcd push fix-login work/fix-login --tag v1.2.0', 'push a named branch and a tag'],
  ],
  builder: (y) =>
    y
      .positional('item', { type: 'string', describe: 'the item this session holds' })
      .positional('branch', { type: 'string', describe: 'local branch to push (default: the current branch)' })
      .option('tag', { type: 'string', array: true, describe: 'a tag to push with it (at the branch head unless it exists locally)' }),
  async run(args, deps) {
    const input = {
      item: itemArg(args.item),
      ...(args.branch !== undefined ? { branch: String(args.branch) } : {}),
      tags: listArg(args.tag),
    };
    const { repo, domain } = await openThenLoad(deps, () => import('../../claims/push.js'), { writes: true });
    const r = await domain.pushWork(repo, input);
    const tags = r.tags.length ? ` and ${r.tags.join(', ')}` : '';
    return {
      json: { ...r, expiresAt: jsonInstant(r.expiresAt) },
      text: `pushed ${r.branch} (${r.head.slice(0, 12)})${tags} under ${r.item}, claim generation ${r.gen} until ${formatInstant(r.expiresAt)}`,
    };
  },
};
