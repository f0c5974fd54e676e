// 7. What each start-up and writing choice earns (ADRs 0037, 0038): A/B in the same run, interleaved.
import { join } from 'node:path';
import { abcd, BUILD, cloneFor, git, makeRemote, interleavedMedians, ms, NODE, ratio, run, sandbox, table } from './lib.mjs';

const REPS = 9;

export async function benchChoices() {
  const { root, env } = sandbox('choices');
  const bare = makeRemote(root, env);
  const a = cloneFor(bare, join(root, 'a'), { ...env, ABCD_SESSION: 'a' }, 'a@example.com');
  const b = cloneFor(bare, join(root, 'b'), { ...env, ABCD_SESSION: 'b' }, 'b@example.com');
  // git writes b's objects: abcd leaves the writing to git in a shared repository ("umask"
  // shares nothing, so git's objects are the same as a's, only the writer differs).
  git(b, ['config', 'core.sharedRepository', 'umask'], env);
  const envA = { ...env, ABCD_SESSION: 'a' };
  const envB = { ...env, ABCD_SESSION: 'b' };
  abcd(a, ['reserve', 'wa'], envA);
  abcd(b, ['reserve', 'wb'], envB);
  const yargsPath = `import(${JSON.stringify(join(BUILD, 'dist/bundle/main.js'))}).then((m) => m.main(process.argv.slice(1)))`;
  const probes = {
    fast: () => abcd(a, ['status'], envA).ms,
    yargs: () => run(NODE, ['-e', yargsPath, 'status'], { cwd: a, env: envA }).ms,
    inProcess: () => abcd(a, ['renew', 'wa'], envA).ms,
    plumbing: () => abcd(b, ['renew', 'wb'], envB).ms,
  };
  const m = interleavedMedians(probes, REPS);
  const rows = [
    ['`abcd status`: fast path (no yargs) vs the full yargs parser', ms(m.fast), ms(m.yargs), ratio(m.fast, m.yargs), ms(m.yargs - m.fast)],
    [
      '`abcd renew`: record objects written in-process vs git plumbing',
      ms(m.inProcess),
      ms(m.plumbing),
      ratio(m.inProcess, m.plumbing),
      ms(m.plumbing - m.inProcess),
    ],
  ];
  return [
    '## 7. What each choice earns',
    '',
    `Same build, same run, interleaved, medians of ${REPS}. The alternative is what abcd did before (yargs for every verb; hash-object, mktree and commit-tree per record).`,
    '',
    table(['choice', 'with it', 'without', 'ratio', 'saved'], rows),
    '',
  ].join('\n');
}
