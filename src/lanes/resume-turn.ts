// One more turn of the `command` agent in the same worktree: the command runs again with
// ABCD_PROMPT naming the file that holds the turn's text and ABCD_TURN_KIND saying why.
import { writeFile } from 'node:fs/promises';
import { runAgent, type AgentRun } from './run-agent.js';

type AgentOptions = Parameters<typeof runAgent>[0];

export async function resumeTurn(
  agent: AgentOptions,
  o: { text: string; kind: 'conflict' | 'check'; promptFile: string },
): Promise<AgentRun> {
  await writeFile(o.promptFile, `${o.text}\n`);
  return runAgent({ ...agent, env: { ...agent.env, ABCD_PROMPT: o.promptFile, ABCD_TURN_KIND: o.kind } });
}
