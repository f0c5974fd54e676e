// `abcd prime`: what an agent needs to know to use abcd.
import type { Command } from '../command.js';

/** `abcd prime`: what an agent needs to know to use abcd, for AGENTS.md or a session-start hook. */
export const prime: Command = {
  command: 'prime',
  describe: 'print the short instructions an agent needs to use abcd (for AGENTS.md or a session-start hook)',
  refusals: [],
  examples: [
    ['abcd prime', 'print them'],
    ['abcd init --agents', 'write them into a marked section of AGENTS.md'],
  ],
  builder: (y) => y,
  async run(_args, _deps, cli) {
    const { primeText } = await import('../prime-text.js');
    const text = primeText(cli.commands);
    return { json: { text }, text };
  },
};
