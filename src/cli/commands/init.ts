// `abcd init`: the repository's abcd config and a CI file for lanes.
import type { Argv } from 'yargs';
import type { Command } from '../command.js';
import { RUNTIME_NAMES } from '../../repo/runtime-names.js';

/** `abcd init [--runtime r] [--ci github|gitlab [--vendor]] [--force]`: the repository's abcd config and a CI file for lanes. */
export const init: Command = {
  command: 'init',
  describe: 'write .abcd/config.json and, with --ci, a CI workflow that runs lanes',
  refusals: ['git-failed'],
  examples: [
    ['abcd init', 'write .abcd/config.json if it is missing'],
    ['abcd init --ci github', 'also write .github/workflows/abcd-lanes.yml'],
    [
      'abcd init --runtime claude --ci github --vendor',
      'lanes run Claude Code; the workflow installs abcd from its own tarball under .abcd/vendor/',
    ],
    ['abcd init --ci gitlab --force', 'write (or rewrite) the GitLab CI file for lanes'],
    ['abcd init --agents', "also write abcd's instructions for agents into AGENTS.md (kept up to date), and a CLAUDE.md importing it"],
    ['abcd init --fix', "add branches-ignore: ['abcd/**'] to your workflows that run on every push"],
  ],
  builder: (y: Argv) =>
    y
      .option('ci', { choices: ['github', 'gitlab'] as const, describe: 'write a CI file that runs lanes' })
      .option('runtime', {
        choices: RUNTIME_NAMES,
        describe: "write lanes.runtime and the runtime's block (claude: ANTHROPIC_API_KEY in lanes.claude.env)",
      })
      .option('vendor', {
        type: 'boolean',
        default: false,
        describe:
          "with --ci: write this abcd's packed tarball to .abcd/vendor/ for the job to install (abcd is not on the npm registry yet)",
      })
      .option('force', { type: 'boolean', default: false, describe: 'rewrite an existing CI file' })
      .option('agents', {
        type: 'boolean',
        default: false,
        describe: "write or update abcd's section of AGENTS.md (abcd prime) and CLAUDE.md's import of it",
      })
      .option('fix', {
        type: 'boolean',
        default: false,
        describe: "add branches-ignore: ['abcd/**'] to the push trigger of your workflows that run on every push",
      }),
  async run(args, deps, cli) {
    const [{ initRepository }, { pushWorkflowAdvice }] = await Promise.all([
      import('../../setup/init.js'),
      import('../../setup/push-workflows.js'),
    ]);
    const ci = args.ci === 'github' || args.ci === 'gitlab' ? args.ci : undefined;
    const runtime = RUNTIME_NAMES.find((n) => n === args.runtime);
    const r = await initRepository({
      cwd: deps.cwd,
      env: deps.env,
      ci,
      ...(runtime ? { runtime } : {}),
      vendor: args.vendor === true,
      force: args.force === true,
      fix: args.fix === true,
    });
    if (args.agents === true) {
      const [{ primeText }, { writeAgentsSection, writeClaudeImport }] = await Promise.all([
        import('../prime-text.js'),
        import('../../setup/agents-md.js'),
      ]);
      const a = await writeAgentsSection(r.root, primeText(cli.commands));
      (a.changed ? r.written : r.kept).push(a.path);
      // After AGENTS.md: a CLAUDE.md symlinked to it is recognised as the same file.
      const c = await writeClaudeImport(r.root);
      (c.changed ? r.written : r.kept).push(c.path);
    }
    const lines = [
      ...r.written.map((p) => `wrote ${p}`),
      ...r.kept.map((p) => `kept ${p} (already there)`),
      ...(r.next ? [r.next] : []),
      ...(r.registries.advice ? [r.registries.advice] : []),
      ...pushWorkflowAdvice(r.pushWorkflows),
      ...(r.steps.length ? ['next:', ...r.steps.map((step, i) => `  ${i + 1}. ${step}`)] : []),
    ];
    return {
      json: {
        root: r.root,
        written: r.written,
        kept: r.kept,
        next: r.next ?? null,
        steps: r.steps,
        pushWorkflows: r.pushWorkflows,
        registries: { files: r.registries.files, allow: r.registries.allow },
      },
      text: lines.join('\n'),
    };
  },
};
