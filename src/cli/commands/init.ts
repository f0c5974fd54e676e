import type { Argv } from 'yargs';
import type { Command } from '../command.js';

/** `abcd init [--ci github|gitlab] [--force]`: the repository's abcd config and a CI file for lanes. */
export const init: Command = {
  command: 'init',
  describe: 'write .abcd/config.json and, with --ci, a CI workflow that runs lanes',
  refusals: ['unsafe-environment'],
  examples: [
    ['abcd init', 'write .abcd/config.json if it is missing'],
    ['abcd init --ci github', 'also write .github/workflows/abcd-lanes.yml'],
    ['abcd init --ci gitlab --force', 'write (or rewrite) the GitLab CI file for lanes'],
  ],
  builder: (y: Argv) =>
    y
      .option('ci', { choices: ['github', 'gitlab'] as const, describe: 'write a CI file that runs lanes' })
      .option('force', { type: 'boolean', default: false, describe: 'rewrite an existing CI file' }),
  async run(args, deps) {
    const { initRepository } = await import('../../verbs/init-ci.js');
    const ci = args.ci === 'github' || args.ci === 'gitlab' ? args.ci : undefined;
    const r = await initRepository({ cwd: deps.cwd, env: deps.env, ci, force: args.force === true });
    const lines = [
      ...r.written.map((p) => `wrote ${p}`),
      ...r.kept.map((p) => `kept ${p} (already there)`),
      ...(r.next ? [r.next] : []),
    ];
    return { json: { root: r.root, written: r.written, kept: r.kept, next: r.next }, text: lines.join('\n') };
  },
};
