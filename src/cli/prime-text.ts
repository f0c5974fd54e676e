// The short instructions an agent needs to use abcd well, made from the command table and the
// refusal codes so they cannot drift from what abcd does (test/prime.test.ts checks it).
import type { Command } from './command.js';
import { REFUSALS } from '../core/refusal-table.js';

export function primeText(commands: readonly Command[]): string {
  const verbs = commands.filter((c) => c.agentUse);
  const byExit = new Map<number, string[]>();
  for (const [code, r] of Object.entries(REFUSALS)) byExit.set(r.exit, [...(byExit.get(r.exit) ?? []), code]);
  return [
    '## Working with other agents: abcd',
    '',
    'Several agents and a person work on this repository at once. abcd coordinates them through',
    'records on the shared git remote. Pass `--json` to every abcd command: stdout is one JSON object,',
    '`{"ok":true,...}` or `{"ok":false,"refusal":{"code","exit","message","data"}}`; decide by the exit',
    'code and `refusal.code`, never by parsing the message. `abcd schema <verb>` prints the JSON Schema',
    'of an answer. Durations are integer milliseconds named `...Ms`; instants are ISO 8601 UTC.',
    '',
    '### Verbs, in the order you use them',
    '',
    ...verbs.map((c, i) => `${i + 1}. \`abcd ${c.command as string}\`: ${c.agentUse}.`),
    '',
    'An item is a slug (`fix-login`) or a key (`github:issue:123`). Work only on an item you reserved.',
    'Renew (or push) well before your claim expires; a claim you stop renewing is taken over.',
    '',
    '### Exit codes and what to do',
    '',
    '| exit | refusal code | means | what to do |',
    '|---|---|---|---|',
    '| 0 | | done | go on |',
    ...Object.entries(REFUSALS)
      .sort((a, b) => a[1].exit - b[1].exit)
      .map(([code, r]) => `| ${r.exit} | \`${code}\` | ${r.means} | ${r.todo} |`),
    '',
    "`abcd gate -- <command>` passes the command's own exit status through; its own refusals",
    'exit 124 (deadline), 125 (gate failed), 126 (cannot run), 127 (not found).',
    '',
    '### Rules',
    '',
    "- Settings (`abcd settings`) are the person's: never change them; ask the person.",
    '- Never push to main or to branches under `abcd/`; only `abcd land` writes main.',
    '- On `fenced` (exit 5) stop: another session holds the item now.',
    '- Nothing waits forever: every wait has a deadline (`--wait`), and reaching it exits 4.',
  ].join('\n');
}
