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
    ['abcd completion --items', 'the item slugs this clone knows, one a line (what the scripts complete; no network)'],
  ],
  builder: (y) =>
    y
      .positional('shell', { choices: ['bash', 'zsh'] as const, describe: 'the shell (default: from $SHELL, else bash)' })
      .option('items', { type: 'boolean', default: false, describe: 'print the item slugs this clone knows instead, from its cache' }),
  async run(args, deps, cli) {
    if (args.items) {
      const [{ Git }, { cachedSlugs }, { unlessRefusal }] = await Promise.all([
        import('../../git/git.js'),
        import('../../items/cached-slugs.js'),
        import('../../core/best-effort.js'),
      ]);
      // Outside a clone, before any fetch, or when git refuses (a clone it cannot read), there is simply nothing to offer.
      const slugs = await cachedSlugs(new Git(deps.cwd, deps.env), deps.remote).catch(unlessRefusal([] as string[]));
      return { json: { items: slugs }, text: slugs.join('\n') };
    }
    const shell = args.shell === 'zsh' || (args.shell === undefined && /zsh$/.test(deps.env.SHELL ?? '')) ? 'zsh' : 'bash';
    const { completionScript } = await import('../completion-script.js');
    const script = await completionScript(shell, cli.commands);
    return { json: { shell, script }, text: script };
  },
};
