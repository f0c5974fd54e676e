// The `gemini` runtime: Gemini CLI headless. The first turn is `gemini -p '' -o stream-json
// --approval-mode yolo` with the turn's text on stdin; every later turn (a steer envelope, a
// rebase prompt, a check's output) runs it again with `-r <session>` in the same worktree, so
// the agent keeps its conversation. Its stdin is read whole before it starts, so it has no live
// input channel: a steer waits for the turn's end. Each run has its private GEMINI_CLI_HOME
// (gemini-home.ts). Usage is the sum of every run's result stats.
import { urlEndpoint } from '../../../machine/sandbox/network-allow.js';
import type { GeminiConfig } from '../../../repo/config.js';
import { startAgent } from '../../run/run-agent.js';
import type { AgentSession, CycleAgent, Runtime, TurnOptions, TurnResult } from '../runtime.js';
import { GEMINI_QUIET_ENV, geminiArgv } from './gemini-args.js';
import { GeminiEvents } from './gemini-events.js';
import { makeGeminiHome } from './gemini-home.js';

// Where the Gemini API is when GOOGLE_GEMINI_BASE_URL does not say.
const GEMINI_API_ENDPOINT = 'generativelanguage.googleapis.com:443';

export function geminiRuntime(cfg: GeminiConfig = {}): Runtime {
  return {
    name: 'gemini',
    open: async (agent) => {
      const home = await makeGeminiHome(agent.cycleDir);
      const base = agent.env.GOOGLE_GEMINI_BASE_URL;
      agent.network?.allow((base && urlEndpoint(base)) || GEMINI_API_ENDPOINT);
      return new GeminiSession(cfg, agent, home);
    },
  };
}

class GeminiSession implements AgentSession {
  readonly live = false;
  private readonly events: GeminiEvents;

  constructor(
    private readonly cfg: GeminiConfig,
    private readonly a: CycleAgent,
    private readonly home: string,
  ) {
    this.events = new GeminiEvents(a.onActivity);
  }

  async turn(text: string, o: TurnOptions): Promise<TurnResult> {
    const session = this.events.sessionId;
    if (o.kind !== 'task' && !session) {
      // Without its session a new run would start over with only this turn's text.
      return {
        exitCode: 1,
        timedOut: false,
        stopped: false,
        durationMs: 0,
        outputTail: 'gemini named no session in its first run: it cannot be resumed',
      };
    }
    this.events.onStarted = o.onTaken;
    const p = await startAgent({
      argv: geminiArgv(this.cfg, o.kind === 'task' ? {} : { resume: session! }),
      stdin: 'pipe',
      env: { ...this.a.env, ...GEMINI_QUIET_ENV, GEMINI_CLI_HOME: this.home },
      sandbox: this.a.sandbox,
      plan: this.a.plan,
      marker: this.a.marker,
      timeoutMs: o.timeoutMs,
      ...(o.signal ? { signal: o.signal } : {}),
      now: this.a.now,
      ...(this.a.onOutput ? { onOutput: this.a.onOutput } : {}),
      onStdout: (chunk) => this.events.feed(chunk),
      onStderr: (chunk) => this.events.note(chunk),
      ...(o.onExit ? { onExit: o.onExit } : {}),
    });
    // The CLI reads its stdin to the end before it starts: the turn's text, then nothing more.
    p.stdin?.end(text);
    const run = await p.done;
    this.events.end();
    this.events.onStarted = undefined;
    return { ...run, outputTail: this.events.takeTail() || run.outputTail };
  }

  steer(): Promise<boolean> {
    // No live channel: the cycle resumes the session with the envelope after the turn.
    return Promise.resolve(false);
  }

  usage() {
    return Promise.resolve({ ...this.events.usage(this.cfg.model), source: 'runtime' as const });
  }

  close(): Promise<void> {
    // Each run is gone with its turn; the home goes with the cycle's folder.
    return Promise.resolve();
  }
}
