// `abcd completion`: a shell completion script made from the command table.
import type { Command } from '../command.js';

/** `abcd completion [bash|zsh]`: a completion script made from the command table. */
export const completion: Command = {
  command: 'completion [shell]',
  describe: 'print a shell completion script for bash or zsh',
  refusals: [],
  examples: [
    ['source <(abcd completion bash)', 'complete abcd in this bash (add it to ~/.bashrc to keep it)'],
    ['abcd completion zsh > "${fpath[1]}/_abcd"', 'install it for zsh'],
  ],
  builder: (y) => y.positional('shell', { choices: ['bash', 'zsh'] as const, describe: 'the shell (default: from $SHELL, else bash)' }),
  async run(args, deps, cli) {
    const shell = args.shell === 'zsh' || (args.shell === undefined && /zsh$/.test(deps.env.SHELL ?? '')) ? 'zsh' : 'bash';
    const { completionScript } = await import('../completion-script.js');
    const script = await completionScript(shell, cli.commands);
    return { json: { shell, script }, text: script };
  },
};
