// A model that answers by script, speaking the Anthropic Messages API the way the real `claude`
// CLI calls it (ANTHROPIC_BASE_URL): `HEAD /` first, then `POST /v1/messages?beta=true` with
// `stream: true`, answered with server-sent events (message_start, content_block_start/delta/stop,
// tool_use blocks streamed as input_json_delta, message_delta with the usage, message_stop).
// Each conversation (the CLI's session id header) gets the script registered for its first
// request: one step per model request, tool calls that make the CLI edit files with its own
// tools, then a final text. Every request body is kept so a test can assert what the agent sent.
// Anything unexpected (a path, a conversation no script matches, a script run out) is answered
// with a 400 the CLI does not retry, and fails verify().
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
}

export type StubBlock = { text: string } | { tool: string; input: Record<string, unknown> };

/** One answer: its content blocks, the usage it reports, and when it is sent. */
export interface StubStep {
  blocks: StubBlock[];
  usage?: StubUsage;
  /** Holds the answer until this resolves (a test that must act while the agent waits on its model). */
  hold?: () => Promise<unknown>;
  /** The same step answers the next request too (a step function that waits for something to arrive). */
  repeat?: boolean;
}

/** A step may be worked out from the request it answers (e.g. act on a steer only once it arrived). */
export type ScriptStep = StubStep | ((req: ModelRequest) => StubStep | Promise<StubStep>);

export interface ModelRequest {
  /** Order of arrival over the whole server, from 1. */
  n: number;
  method: string;
  path: string;
  /** The CLI's session id (x-claude-code-session-id); one conversation across turns and resumes. */
  conversation: string;
  body: MessagesBody;
  at: number;
  /** The key the request carried (x-api-key, else a bearer token): what reached the model server. */
  key?: string;
  /** Each credential header as it arrived, and the anthropic-beta flags. */
  auth: { apiKey?: string; bearer?: string; betas: string[] };
}

export interface MessagesBody {
  model?: string;
  stream?: boolean;
  messages?: Array<{ role: string; content: unknown }>;
  [k: string]: unknown;
}

interface Script {
  match: (req: ModelRequest) => boolean;
  steps: ScriptStep[];
  conversation?: string;
  next: number;
}

// What the real API sends as output_tokens in message_start before the answer is written.
const START_OUTPUT_TOKENS = 1;

export const tool = {
  write: (file_path: string, content: string): StubBlock => ({ tool: 'Write', input: { file_path, content } }),
  edit: (file_path: string, old_string: string, new_string: string): StubBlock => ({
    tool: 'Edit',
    input: { file_path, old_string, new_string },
  }),
  read: (file_path: string): StubBlock => ({ tool: 'Read', input: { file_path } }),
  bash: (command: string): StubBlock => ({ tool: 'Bash', input: { command, description: 'run a command' } }),
};

/** A final answer with no tool call: the CLI's turn ends with it. */
export function answer(text: string, usage?: StubUsage): StubStep {
  return { blocks: [{ text }], ...(usage ? { usage } : {}) };
}

export function toolStep(blocks: StubBlock | StubBlock[], usage?: StubUsage): StubStep {
  return { blocks: Array.isArray(blocks) ? blocks : [blocks], ...(usage ? { usage } : {}) };
}

/**
 * Everything the request carries from the user's side: prompts, tool results, and the messages
 * the CLI injects (a message that came while it worked goes in as a `system` role message, or
 * inside the next user message).
 */
export function requestText(req: ModelRequest): string {
  return (req.body.messages ?? [])
    .filter((m) => m.role !== 'assistant')
    .map((m) => textOf(m.content))
    .join('\n');
}

/** The agent's working directory, as the CLI tells its model in the system prompt. */
export function workingDirectory(req: ModelRequest): string {
  const system = JSON.stringify(req.body.system ?? '');
  const m = /Primary working directory: ([^\\"]+)/.exec(system);
  if (!m) throw new Error('the request names no working directory');
  return m[1]!.trim();
}

/** What a request added after the model's last answer: the messages after the last assistant one. */
export function lastUserText(req: ModelRequest): string {
  const msgs = req.body.messages ?? [];
  const after = msgs.slice(msgs.findLastIndex((m) => m.role === 'assistant') + 1);
  return after.map((m) => textOf(m.content)).join('\n');
}

function lastOfRole(req: ModelRequest, role: string): string {
  return textOf((req.body.messages ?? []).findLast((m) => m.role === role)?.content);
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: { type?: string; text?: unknown; content?: unknown }) =>
      b.type === 'text' && typeof b.text === 'string' ? b.text : b.type === 'tool_result' ? textOf(b.content) : '',
    )
    .join('\n');
}

export class AnthropicStub {
  readonly requests: ModelRequest[] = [];
  readonly problems: string[] = [];
  private readonly scripts: Script[] = [];
  private readonly reported = new Map<string, Required<StubUsage> & { requests: number }>();
  private server!: Server;
  private base = '';
  private heads = 0;
  /** Requests that came through a proxy (abcd's egress proxy names itself in Via): Claude Code sends no HEAD / through one. */
  private proxied = 0;

  static async start(): Promise<AnthropicStub> {
    const stub = new AnthropicStub();
    stub.server = createServer((req, res) => void stub.handle(req, res));
    await new Promise<void>((resolve) => stub.server.listen(0, '127.0.0.1', resolve));
    stub.base = `http://127.0.0.1:${(stub.server.address() as AddressInfo).port}`;
    return stub;
  }

  /** ANTHROPIC_BASE_URL for the CLI. */
  get url(): string {
    return this.base;
  }

  /**
   * The script of the first conversation whose first request's user text contains `match`
   * (or satisfies it). Scripts are tried in the order registered; each serves one conversation.
   */
  on(match: string | ((req: ModelRequest) => boolean), steps: ScriptStep[]): { conversation: () => string } {
    const m = typeof match === 'string' ? (req: ModelRequest) => requestText(req).includes(match) : match;
    const script: Script = { match: m, steps, next: 0 };
    this.scripts.push(script);
    return {
      conversation: () => {
        if (!script.conversation) throw new Error('that script has served no conversation yet');
        return script.conversation;
      },
    };
  }

  /** The conversations in the order they started. */
  conversations(): string[] {
    return [...new Set(this.requests.map((r) => r.conversation))];
  }

  /** The streamed model requests of one conversation, oldest first. */
  requestsOf(conversation: string): ModelRequest[] {
    return this.requests.filter((r) => r.conversation === conversation && r.path.startsWith('/v1/messages') && !isCount(r.path));
  }

  /** What the stub told the CLI it used in one conversation, summed over its answers. */
  usageOf(conversation: string): Required<StubUsage> & { requests: number } {
    return this.reported.get(conversation) ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, requests: 0 };
  }

  /** Throws listing every unexpected request and every script that did not run to its end. */
  verify(): void {
    const left = this.scripts
      .filter((s) => s.next < s.steps.length)
      .map((s) => `a script ${s.conversation ? `(conversation ${s.conversation}) ` : ''}has ${s.steps.length - s.next} step(s) unused`);
    const all = [...this.problems, ...left];
    if (this.heads === 0 && this.requests.length > this.proxied) all.push('no HEAD / came before the first request');
    if (all.length) throw new Error(`model server stub: ${all.join('; ')}`);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = req.url ?? '/';
    if (String(req.headers.via ?? '').includes('abcd')) this.proxied++;
    if (req.method === 'HEAD' && path === '/') {
      this.heads++;
      res.writeHead(200).end();
      return;
    }
    let body: MessagesBody;
    try {
      body = raw ? (JSON.parse(raw) as MessagesBody) : {};
    } catch {
      return this.refuse(res, `${req.method} ${path} sent a body that is not JSON`);
    }
    const header = req.headers['x-claude-code-session-id'];
    const conversation = typeof header === 'string' ? header : 'none';
    const key = keyOf(req);
    const r: ModelRequest = {
      n: this.requests.length + 1,
      method: req.method ?? '',
      path,
      conversation,
      body,
      at: Date.now(),
      ...(key !== undefined ? { key } : {}),
      auth: authOf(req),
    };
    this.requests.push(r);
    if (req.method !== 'POST' || !path.startsWith('/v1/messages')) return this.refuse(res, `unexpected ${req.method} ${path}`);
    if (isCount(path)) return json(res, { input_tokens: Math.ceil(raw.length / 4) });
    const script = this.scriptFor(r);
    if (!script)
      return this.refuse(
        res,
        `no script for conversation ${conversation} (its last user message ends: ${lastOfRole(r, 'user').slice(-200)})`,
      );
    const next = script.steps[script.next];
    if (!next)
      return this.refuse(res, `conversation ${conversation} asked for answer ${script.next + 1}, its script has ${script.steps.length}`);
    let step: StubStep;
    try {
      step = typeof next === 'function' ? await next(r) : next;
      if (!step.repeat) script.next++;
      await step.hold?.();
    } catch (e) {
      return this.refuse(res, `step ${script.next + 1} of conversation ${conversation} failed: ${(e as Error).message}`);
    }
    this.count(conversation, step.usage);
    const message = messageOf(step, body.model ?? 'claude-stub', r.n);
    if (body.stream) stream(res, message);
    else json(res, message.whole);
  }

  private scriptFor(r: ModelRequest): Script | undefined {
    const mine = this.scripts.find((s) => s.conversation === r.conversation);
    if (mine) return mine;
    const free = this.scripts.find((s) => s.conversation === undefined && s.match(r));
    if (free) free.conversation = r.conversation;
    return free;
  }

  private count(conversation: string, u: StubUsage = {}): void {
    const t = this.usageOf(conversation);
    this.reported.set(conversation, {
      input: t.input + (u.input ?? 0),
      output: t.output + (u.output ?? 0),
      cacheRead: t.cacheRead + (u.cacheRead ?? 0),
      cacheWrite: t.cacheWrite + (u.cacheWrite ?? 0),
      requests: t.requests + 1,
    });
  }

  private refuse(res: ServerResponse, problem: string): void {
    this.problems.push(problem);
    // 400 is not retried by the CLI: the run fails at once, and verify() says why.
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: `model server stub: ${problem}` } }));
  }
}

function isCount(path: string): boolean {
  return path.startsWith('/v1/messages/count_tokens');
}

interface Built {
  whole: Record<string, unknown>;
  events: Array<[string, Record<string, unknown>]>;
}

function messageOf(step: StubStep, model: string, n: number): Built {
  const u = step.usage ?? {};
  const id = `msg_stub_${n}`;
  const usage = { input_tokens: u.input ?? 0, cache_read_input_tokens: u.cacheRead ?? 0, cache_creation_input_tokens: u.cacheWrite ?? 0 };
  const content = step.blocks.map((b, i) =>
    'text' in b ? { type: 'text', text: b.text } : { type: 'tool_use', id: `toolu_stub_${n}_${i}`, name: b.tool, input: b.input },
  );
  const stopReason = step.blocks.some((b) => 'tool' in b) ? 'tool_use' : 'end_turn';
  const events: Built['events'] = [
    [
      'message_start',
      {
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          usage: { ...usage, output_tokens: START_OUTPUT_TOKENS },
        },
      },
    ],
  ];
  content.forEach((c, index) => {
    if (c.type === 'text') {
      events.push(['content_block_start', { index, content_block: { type: 'text', text: '' } }]);
      events.push(['content_block_delta', { index, delta: { type: 'text_delta', text: c.text } }]);
    } else {
      events.push(['content_block_start', { index, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } }]);
      events.push(['content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(c.input) } }]);
    }
    events.push(['content_block_stop', { index }]);
  });
  events.push(['message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: u.output ?? 0 } }]);
  events.push(['message_stop', {}]);
  const whole = {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason,
    usage: { ...usage, output_tokens: u.output ?? 0 },
  };
  return { whole, events };
}

function stream(res: ServerResponse, m: Built): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [type, data] of m.events) res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  res.end();
}

function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let s = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (s += d));
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });
}

/** The key a request carried: `x-api-key`, else an `Authorization: Bearer` token. */
function authOf(req: IncomingMessage): ModelRequest['auth'] {
  const apiKey = req.headers['x-api-key'];
  const auth = req.headers.authorization;
  const betas = String(req.headers['anthropic-beta'] ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  return {
    ...(typeof apiKey === 'string' ? { apiKey } : {}),
    ...(auth?.startsWith('Bearer ') ? { bearer: auth.slice('Bearer '.length) } : {}),
    betas,
  };
}

export function keyOf(req: IncomingMessage): string | undefined {
  const key = req.headers['x-api-key'];
  if (typeof key === 'string') return key;
  const auth = req.headers.authorization;
  return auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length) : undefined;
}
