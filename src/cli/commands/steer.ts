// `abcd steer`: send a request to the lane building an item.
import type { Command } from '../command.js';
import { itemArg } from '../args.js';
import { jsonInstant } from '../render.js';
import { UsageError } from '../../core/refusals.js';

export const steer: Command = {
  command: 'steer <item> [text]',
  describe: 'ask the lane working on an item to absorb an update (delivered to its agent in flight, or to the next cycle)',
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
  agentUse: 'ask the lane building an item to take an update in flight',
  examples: [
    ['abcd steer fix-login "also cover the logout path"', 'the lane on fix-login gets it in its mailbox on its next poll'],
    ['abcd steer fix-login --from-file notes.md', 'the text of a file, several lines'],
  ],
  builder: (y) =>
    y
      .positional('item', { type: 'string', describe: 'a slug (fix-login) or a key' })
      .positional('text', { type: 'string', describe: 'what the lane should change' })
      .option('from-file', { type: 'string', describe: 'read the text from this file instead' }),
  async run(args, deps) {
    const item = itemArg(args.item);
    const file = args['from-file'] as string | undefined;
    if (file !== undefined && args.text !== undefined) throw new UsageError('give the text or --from-file, not both.', 'argument');
    if (file === undefined && args.text === undefined)
      throw new UsageError('no steer text: give it after the item, or --from-file <file>.', 'argument');
    let text = String(args.text ?? '');
    if (file !== undefined) {
      const [{ readFile }, { resolve }] = await Promise.all([import('node:fs/promises'), import('node:path')]);
      try {
        text = await readFile(resolve(deps.cwd, file), 'utf8');
      } catch (e) {
        throw new UsageError(`cannot read --from-file ${file}: ${(e as Error).message}; nothing was recorded.`, 'file', { file });
      }
    }
    const [{ openRepo }, verb] = await Promise.all([import('../../repo/repo.js'), import('../../steering/steer.js')]);
    const r = await verb.steer(await openRepo(deps), { item, text });
    const who = r.provenBy ? `signed by ${r.provenBy}` : r.signed ? 'signed by a key your allowed-signers list does not name' : 'unsigned';
    const as =
      r.as === 'context'
        ? ` as context (${who}: not proven to be its person or a requester the signed settings name; information, not an instruction)`
        : r.as
          ? // Unprotected, every steer is unverified: status warns once; --verbose says it here too.
            r.protected
            ? ` as an amendment (${who})`
            : args.verbose
              ? ' as an amendment (unverified: requests are unprotected without an allowed-signers list)'
              : ' as an amendment'
          : '';
    const where = r.done
      ? `${r.item} is done: no lane takes it, and the steer waits until someone reopens it ` +
        `(abcd reserve ${r.item} --reopen, or abcd build ${r.item} --reopen)`
      : r.heldBy && r.laneHolds
        ? `the lane of ${r.heldBy} gets it on its next poll${as}`
        : `no lane holds it now${r.heldBy ? ` (${r.heldBy} holds it, and is no lane)` : ''}: it will be delivered to the next lane that ` +
          `takes ${r.item}`;
    const json = { ...r, at: jsonInstant(r.at), heldBy: r.heldBy ?? null, as: r.as ?? null, provenBy: r.provenBy ?? null };
    return { json, text: `steer ${r.id} recorded for ${r.item}; ${where}` };
  },
};
