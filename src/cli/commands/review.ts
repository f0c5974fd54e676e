// `abcd review`: the lane work that waits for the person, protected paths' diff first.
import type { Command } from '../command.js';
import { itemArg } from '../args.js';
import type { ReviewView } from '../../lanes/guards/review.js';

export const review: Command = {
  command: 'review [item]',
  describe: 'show lane work that changes protected paths and waits for you: the diff of those paths first, then the rest',
  refusals: ['git-failed', 'record-too-new', 'unsafe-environment', 'remote-unavailable', 'record-invalid', 'deadline', 'forge-rejected'],
  usesRemote: true,
  examples: [
    ['abcd review', 'every item whose lane work waits for your review'],
    ['abcd review fix-login', "one item's waiting work; land it with abcd land fix-login --approve <run>"],
  ],
  builder: (y) => y.positional('item', { type: 'string', describe: 'only this item' }),
  async run(args, deps) {
    const item = args.item !== undefined ? itemArg(args.item) : undefined;
    const [{ openRepo }, { listReviews }] = await Promise.all([import('../../repo/repo.js'), import('../../lanes/guards/review.js')]);
    const r = await listReviews(await openRepo(deps), item ? { item } : {});
    return { json: { reviews: r.reviews }, text: r.reviews.length ? r.reviews.map(reviewText).join('\n') : 'nothing waits for review.' };
  },
};

function reviewText(r: ReviewView): string {
  const head = [
    `${r.item} waits for review: run ${r.run}, branch ${r.branch} at ${r.head.slice(0, 12)} (on ${r.base.slice(0, 12)})`,
    `protected paths: ${r.paths.join(', ')}`,
    r.moved ? `the branch no longer holds ${r.head.slice(0, 12)}: it cannot be approved as reviewed` : `land it: ${r.approve}`,
  ];
  const parts = [
    `--- the protected paths\n${r.diff.protected || '(no diff: the work is not in this clone)\n'}`,
    ...(r.diff.rest ? [`--- the rest\n${r.diff.rest}`] : []),
    ...(r.diff.truncated ? ['(the diff was cut; git diff ' + `${r.base.slice(0, 12)} ${r.head.slice(0, 12)} shows it whole)\n`] : []),
  ];
  return `${head.join('\n')}\n${parts.join('')}`;
}
