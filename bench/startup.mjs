// 3. Start-up: `abcd --help` against `node -e 0`; `abcd status` on an empty remote against node + raw fetch.
import { join } from 'node:path';
import {
  abcd,
  cloneFor,
  git,
  makeRemote,
  mark,
  interleavedMedians,
  ms,
  NODE,
  RAW_SPEC,
  ratio,
  run,
  sandbox,
  table,
  target,
} from './lib.mjs';

const REPS = 11;

export async function benchStartup() {
  const { root, env } = sandbox('startup');
  const bare = makeRemote(root, env);
  const clone = cloneFor(bare, join(root, 'clone'), env);
  // node's own start-up depends on the caller's environment (NODE_EXTRA_CA_CERTS loads a CA
  // bundle before any code runs): measured both clean and with this shell's NODE_* variables.
  const nodeVars = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('NODE_')));
  const envNode = { ...env, ...nodeVars };
  const probes = {
    node: () => run(NODE, ['-e', '0'], { env }).ms,
    help: () => abcd(clone, ['--help'], env).ms,
    status: () => abcd(clone, ['status'], env).ms,
    fetch: () => git(clone, ['fetch', '-q', 'origin', RAW_SPEC], env).ms,
    ...(Object.keys(nodeVars).length
      ? { nodeInherited: () => run(NODE, ['-e', '0'], { env: envNode }).ms, helpInherited: () => abcd(clone, ['--help'], envNode).ms }
      : {}),
  };
  const m = interleavedMedians(probes, REPS);
  const floor = m.node + m.fetch;
  /** @type {(label: string, help: number, node: number) => string[]} */
  const helpRow = (label, help, node) => [
    label,
    ms(help),
    `\`node -e 0\` ${ms(node)}`,
    ratio(help, node),
    `≤ 1.5x: ${mark(help / node <= 1.5)}`,
  ];
  const rows = [helpRow('`abcd --help`', m.help, m.node)];
  if (m.helpInherited !== undefined && m.nodeInherited !== undefined)
    rows.push(helpRow(`\`abcd --help\` with ${Object.keys(nodeVars).join(', ')}`, m.helpInherited, m.nodeInherited));
  rows.push([
    '`abcd status`, empty remote',
    ms(m.status),
    `\`node -e 0\` + \`git fetch\` ${ms(floor)} (${ms(m.node)} + ${ms(m.fetch)})`,
    ratio(m.status, floor),
    `≤ 2x: ${mark(m.status / floor <= 2)}`,
  ]);
  target('`abcd --help`, bare environment', m.help, '`node -e 0`', m.node, 1.5);
  target('status, empty remote', m.status, 'node + fetch', floor, 2);
  return [
    '## 3. Start-up',
    '',
    `Medians of ${REPS}, interleaved, clean environment unless named. Empty remote: no \`refs/heads/abcd/*\` at all.`,
    '',
    table(['command', 'time', 'baseline (same run)', 'ratio', 'goal'], rows),
    '',
  ].join('\n');
}
