// A model server for the OpenAI Responses API, so the real `codex` CLI runs with no network: a
// node:http server on 127.0.0.1 that answers `POST /v1/responses` (`stream: true`) with
// server-sent events, step by step from a script per conversation (a thread: Codex names it in
// its `thread-id` header). A step is a shell command through Codex's `exec_command` tool, or a
// message that ends the turn. Every request is recorded so a test can assert what the agent
// sent. Anything unexpected (another path, a conversation past its script, a step that throws)
// is answered 400, never 500 (Codex retries a 500 five times), and recorded: verify() fails.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { keyOf } from './model-server-anthropic.js';
import type { AddressInfo } from 'node:net';

/** Tokens one answer reports (the Responses API's `usage`). */
export interface StepUsage {
  input: number;
  cached?: number;
  output: number;
}

export type ModelStep = ({ exec: string } | { say: string }) & { usage?: StepUsage };

/** One request as the stub saw it. */
export interface ResponsesRequest {
  /** The conversation (Codex's thread id). */
  thread: string;
  /** 0 for a conversation's first request. */
  index: number;
  body: ResponsesBody;
  /** The text of every user message in the request's input, in order. */
  userTexts: string[];
  /** The text of every function_call_output in the input, in order. */
  outputs: string[];
  /** What the stub reported for this request. */
  usage: StepUsage;
  /** The bearer token the request carried: what reached the model server. */
  key?: string;
}

export interface ResponsesBody {
  model?: string;
  stream?: boolean;
  input: Array<{ type: string; role?: string; content?: unknown; output?: unknown; call_id?: string }>;
  [k: string]: unknown;
}

/** A step, or a function of the request that gives one (it may wait: the agent works meanwhile). */
export type ScriptStep = ModelStep | ((req: ResponsesRequest) => ModelStep | Promise<ModelStep>);

// A step with no usage of its own reports this.
const DEFAULT_USAGE: StepUsage = { input: 100, cached: 0, output: 10 };

export class OpenAiModelServer {
  readonly requests: ResponsesRequest[] = [];
  readonly problems: string[] = [];
  private readonly threads = new Map<string, ScriptStep[]>();
  private server!: Server;
  private port = 0;
  private open = 0;

  private constructor(private readonly script: (thread: string, n: number) => ScriptStep[]) {}

  /**
   * `script` gives each new conversation its steps (called once per thread, with the count of
   * threads before it): a step is taken per request, in order.
   */
  static async start(script: ScriptStep[] | ((thread: string, n: number) => ScriptStep[])): Promise<OpenAiModelServer> {
    const s = new OpenAiModelServer(typeof script === 'function' ? script : () => [...script]);
    s.server = createServer((req, res) => void s.handle(req, res));
    await new Promise<void>((resolve) => s.server.listen(0, '127.0.0.1', resolve));
    s.port = (s.server.address() as AddressInfo).port;
    return s;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** A Codex `config.toml` naming this server as its provider (the key is read from `envKey`). */
  codexConfig(o: { model?: string; envKey?: string } = {}): string {
    return [
      `model = "${o.model ?? 'stub-model'}"`,
      'model_provider = "stub"',
      '[model_providers.stub]',
      'name = "stub"',
      `base_url = "${this.baseUrl}"`,
      'wire_api = "responses"',
      `env_key = "${o.envKey ?? 'STUB_OPENAI_KEY'}"`,
      '',
    ].join('\n');
  }

  /** The requests of one conversation, in order. */
  conversation(thread: string): ResponsesRequest[] {
    return this.requests.filter((r) => r.thread === thread);
  }

  /** What the stub reported over every request of a conversation. */
  reported(thread?: string): StepUsage & { requests: number } {
    const rs = thread ? this.conversation(thread) : this.requests;
    const sum = (f: (u: StepUsage) => number) => rs.reduce((a, r) => a + f(r.usage), 0);
    return { input: sum((u) => u.input), cached: sum((u) => u.cached ?? 0), output: sum((u) => u.output), requests: rs.length };
  }

  /** Throws naming every unexpected request and every conversation with steps left, when asked. */
  verify(o: { allStepsUsed?: boolean } = {}): void {
    const left = o.allStepsUsed
      ? [...this.threads].filter(([, steps]) => steps.length > 0).map(([t, s]) => `${t}: ${s.length} steps unused`)
      : [];
    const all = [...this.problems, ...left];
    if (all.length) throw new Error(`the model server saw what it did not expect:\n${all.join('\n')}`);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Requests neither answered nor dropped by the client: a killed agent drops its own. */
  inFlight(): number {
    return this.open;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.open++;
    res.on('close', () => this.open--);
    const text = await readBody(req);
    const refuse = (why: string) => {
      this.problems.push(why);
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: `model stub: ${why}` } }));
    };
    if (req.method !== 'POST' || req.url !== '/v1/responses') return refuse(`unexpected ${req.method} ${req.url}`);
    let body: ResponsesBody;
    try {
      body = JSON.parse(text) as ResponsesBody;
    } catch {
      return refuse('a body that is not JSON');
    }
    if (body.stream !== true || !Array.isArray(body.input)) return refuse('a request without stream: true and an input list');
    const thread = headerOf(req, 'thread-id') ?? (typeof body.prompt_cache_key === 'string' ? body.prompt_cache_key : 'unnamed');
    if (!this.threads.has(thread)) this.threads.set(thread, this.script(thread, this.threads.size));
    const steps = this.threads.get(thread)!;
    const index = this.requests.filter((r) => r.thread === thread).length;
    const record: ResponsesRequest = {
      thread,
      index,
      body,
      userTexts: userTexts(body),
      outputs: outputs(body),
      usage: { input: 0, output: 0 },
      ...(keyOf(req) !== undefined ? { key: keyOf(req)! } : {}),
    };
    this.requests.push(record);
    const next = steps.shift();
    if (!next) return refuse(`request ${index} of conversation ${thread} is past its script`);
    let step: ModelStep;
    try {
      step = typeof next === 'function' ? await next(record) : next;
    } catch (e) {
      return refuse(`the script's step ${index} of ${thread} failed: ${(e as Error).message}`);
    }
    record.usage = { ...DEFAULT_USAGE, ...step.usage };
    sendStream(res, `resp_${this.requests.length}`, step, record.usage);
  }
}

function sendStream(res: ServerResponse, id: string, step: ModelStep, usage: StepUsage): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const item =
    'exec' in step
      ? {
          type: 'function_call',
          id: `fc_${id}`,
          call_id: `call_${id}`,
          name: 'exec_command',
          arguments: JSON.stringify({ cmd: step.exec }),
        }
      : {
          type: 'message',
          id: `msg_${id}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: step.say, annotations: [] }],
        };
  send('response.created', { response: { id, status: 'in_progress' } });
  send('response.output_item.added', { output_index: 0, item });
  send('response.output_item.done', { output_index: 0, item });
  const u = {
    input_tokens: usage.input,
    input_tokens_details: { cached_tokens: usage.cached ?? 0 },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.input + usage.output,
  };
  send('response.completed', { response: { id, status: 'completed', usage: u } });
  res.end();
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function userTexts(body: ResponsesBody): string[] {
  return body.input.filter((i) => i.type === 'message' && i.role === 'user').map((i) => contentText(i.content));
}

function outputs(body: ResponsesBody): string[] {
  return body.input
    .filter((i) => i.type === 'function_call_output')
    .map((i) => (typeof i.output === 'string' ? i.output : JSON.stringify(i.output)));
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((c: { text?: unknown }) => (typeof c.text === 'string' ? c.text : '')).join('');
}
