// The `command` runtime: any shell command, headless, stdin closed. Its contract is abcd's
// own files: the turn's text in ABCD_PROMPT, steers appended to ABCD_MAILBOX while it runs
// (ABCD_MAILBOX_FROM says where a later turn's envelope starts), usage lines in ABCD_USAGE.
// A later turn runs the same command again in the same worktree; ABCD_TURN_KIND says why.
import { writeFile } from 'node:fs/promises';
import { readCommandUsage } from '../../../machine/budget/command-usage.js';
import { agentFileSize, appendToAgentFile, readAgentFile } from '../../run/agent-files.js';
import { runAgent } from '../../run/run-agent.js';
import type { AgentSession, CycleAgent, Runtime, TurnOptions, TurnResult } from '../runtime.js';
import { turnProcess } from '../turn-process.js';

export function commandRuntime(command: string): Runtime {
  return {
    name: 'command',
    activityInOutput: true,
    open: (agent) => Promise.resolve(new CommandSession(command, agent)),
  };
}

class CommandSession implements AgentSession {
  readonly live = true;
  private round = 0;

  constructor(
    private readonly command: string,
    private readonly a: CycleAgent,
  ) {}

  async turn(text: string, o: TurnOptions): Promise<TurnResult> {
    this.round++;
    const from = agentFileSize(this.a.mailbox);
    // The envelope also goes to the mailbox, the channel a command that predates ABCD_PROMPT reads.
    if (o.envelope !== undefined) appendToAgentFile(this.a.mailbox, o.envelope);
    await writeFile(this.a.promptFile, text);
    o.onTaken?.();
    const env: Record<string, string> = {
      ...this.a.env,
      ABCD_PROMPT: this.a.promptFile,
      ABCD_TURN_KIND: o.kind,
      ABCD_TURN: String(this.round),
    };
    if (this.round > 1 && o.kind === 'steer') Object.assign(env, { ABCD_MAILBOX_FROM: String(from), ABCD_STEER_ROUND: String(this.round) });
    return runAgent({
      command: this.command,
      env,
      ...turnProcess(this.a, o),
    });
  }

  /** While a turn runs: the envelope is appended to the mailbox the command reads. */
  steer(envelope: string): Promise<boolean> {
    return Promise.resolve(appendToAgentFile(this.a.mailbox, envelope));
  }

  async usage() {
    return readCommandUsage(await readAgentFile(this.a.usageFile));
  }

  close(): Promise<void> {
    // Each turn's process is gone when the turn ends: nothing is left to stop.
    return Promise.resolve();
  }
}
