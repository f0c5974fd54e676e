// `abcd schema`: the JSON Schema of each verb's --json answer.
import type { Command } from '../command.js';
import { UsageError } from '../../core/refusals.js';

/** `abcd schema [verb]`: the JSON Schema of each verb's --json answer, generated from zod. */
export const schema: Command = {
  command: 'schema [verb]',
  describe: "print the JSON Schema of a verb's --json answer (every verb's without one)",
  refusals: [],
  agentUse: "learn the exact shape of a verb's answer (abcd schema reserve)",
  examples: [
    ['abcd schema reserve', "the shape of abcd reserve --json's answer, success or refusal"],
    ['abcd schema > abcd.schema.json', 'every verb at once'],
  ],
  builder: (y) => y.positional('verb', { type: 'string', describe: 'the verb (default: all)' }),
  async run(args, _deps, cli) {
    const { ANSWERS, answerJsonSchema } = await import('../answers.js');
    const verbs = Object.keys(ANSWERS);
    if (args.verb !== undefined && !verbs.includes(String(args.verb))) {
      throw new UsageError(`no verb "${String(args.verb)}" has an answer schema; the verbs are: ${verbs.join(', ')}.`, 'verb', {
        verb: String(args.verb),
        verbs,
      });
    }
    const refusalsOf = (verb: string) => cli.commands.find((c) => String(c.command).split(' ')[0] === verb)?.refusals ?? [];
    const schemaOf = (verb: string) => answerJsonSchema(verb, refusalsOf(verb));
    const out = args.verb !== undefined ? schemaOf(String(args.verb)) : Object.fromEntries(verbs.map((v) => [v, schemaOf(v)]));
    return { json: args.verb !== undefined ? { verb: args.verb, schema: out } : { schemas: out }, text: JSON.stringify(out, null, 2) };
  },
};
