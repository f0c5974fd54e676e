// `abcd announce`: say what this session is doing, for everyone reading status.
import type { Command } from '../command.js';
import { openThenLoad } from '../open-early.js';
import { itemArg, ttlArg } from '../args.js';
import { formatInstant, jsonInstant } from '../render.js';
import { UsageError } from '../../core/refusals.js';

// An announcement expires on its own after this long unless told otherwise.
const DEFAULT_TTL_MS = 2 * 3_600_000;
const STATES = ['working', 'blocked', 'done', 'away'] as const;
// Kept in step with records/announce.ts (which loads zod: not on the path of --help).
const MAX_TEXT = 200;

/** `abcd announce <state> [<item>] <text>`: a short announcement others see in status. */
export const announce: Command = {
  command: 'announce <state> <words..>',
  describe: 'announce what this session is doing (working, blocked, done, away); shown in abcd status, expires on its own',
  refusals: ['git-failed', 'conflict', 'forge-rejected', 'deadline', 'unsafe-environment', 'remote-unavailable'],
  usesRemote: true,
  agentUse: 'tell the others what you do or why you are stuck (expires on its own, default 2h)',
  examples: [
    ['abcd announce working fix-login "rewriting the session store"', 'say what you work on'],
    ['abcd announce blocked "waiting for the person to answer about the API"', 'say why you are stuck'],
    ['abcd announce away --ttl 30m "back after the build"', 'expires after 30 minutes'],
  ],
  builder: (y) =>
    y
      .positional('state', { choices: STATES, describe: 'working, blocked, done or away' })
      .positional('words', {
        type: 'string',
        array: true,
        describe: '[<item>] "<text>": the item first when the text is about one; quote the text',
      })
      .option('ttl', { type: 'string', describe: 'how long it shows (default 2h)' }),
  async run(args, deps) {
    const words = ((args.words as unknown[] | undefined) ?? []).map(String);
    const [first, ...rest] = words;
    // The text is one quoted argument: with two words the first is the item; with one, or
    // with an unquoted sentence, it is all text.
    const withItem = words.length === 2;
    const text = (withItem ? rest : words).join(' ');
    if (text.trim() === '') throw new UsageError('say something: abcd announce <state> [<item>] <text>', 'argument');
    if (text.length > MAX_TEXT)
      throw new UsageError(`the announcement is ${text.length} characters, over ${MAX_TEXT}: keep it to one short line.`, 'argument');
    // eslint-disable-next-line no-control-regex -- control and invisible characters are what this refuses
    if (/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/.test(text)) {
      throw new UsageError('the announcement has control, bidi or invisible characters: write it as plain text on one line.', 'argument');
    }
    const input = {
      state: args.state as (typeof STATES)[number],
      ...(withItem ? { item: itemArg(first) } : {}),
      text,
      ttlMs: ttlArg(args.ttl) ?? DEFAULT_TTL_MS,
    };
    const { repo, domain } = await openThenLoad(deps, () => import('../../status/announce.js'), { writes: true });
    const r = await domain.announce(repo, input);
    return {
      json: { ...r, at: jsonInstant(r.at), expiresAt: jsonInstant(r.expiresAt) },
      text: `announced ${r.state}${r.item ? ` on ${r.item}` : ''} until ${formatInstant(r.expiresAt)}: ${r.text}`,
    };
  },
};
