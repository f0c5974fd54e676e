// A model server for the Gemini API, so the real `gemini` CLI runs with no network: a node:http
// server on 127.0.0.1 that answers `POST /v1beta/models/<model>:streamGenerateContent?alt=sse`
// with server-sent events (and `:generateContent` with one JSON answer), step by step from a script. A step is a shell command through Gemini
// CLI's `run_shell_command` tool, or a message that ends the turn; each answer carries the
// `usageMetadata` the step reports. Every request is recorded so a test can assert what the
// agent sent. Anything unexpected (another path, a request past the script, a step that throws)
// is answered 400, never 500 (the CLI retries a 5xx), and recorded: verify() fails.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Tokens one answer reports (the Gemini API's `usageMetadata`). */
export interface StepUsage {
  input: number;
  cached?: number;
  output: number;
}

export type ModelStep = ({ exec: string } | { say: string }) & { usage?: StepUsage };

interface Part {
  text?: unknown;
  functionCall?: unknown;
  functionResponse?: { name?: unknown; response?: unknown };
}

export interface GeminiBody {
  contents: Array<{ role?: string; parts?: Part[] }>;
  [k: string]: unknown;
}

/** One request as the stub saw it. */
export interface GeminiRequest {
  /** The model the URL names. */
  model: string;
  index: number;
  body: GeminiBody;
  /** The text of every user part of the request's contents, in order (the CLI's own context first). */
  userTexts: string[];
  /** Every function response in the contents, as JSON, in order. */
  outputs: string[];
  usage: StepUsage;
  /** The key the request carried (`x-goog-api-key`): what reached the model server. */
  key?: string;
}

/** A step, or a function of the request that gives one (it may wait: the agent works meanwhile). */
export type ScriptStep = ModelStep | ((req: GeminiRequest) => ModelStep | Promise<ModelStep>);

// A step with no usage of its own reports this.
const DEFAULT_USAGE: StepUsage = { input: 100, cached: 0, output: 10 };
const PATH = /^\/v1beta\/models\/([A-Za-z0-9._-]+):(streamGenerateContent\?alt=sse|generateContent)$/;

export class GeminiModelServer {
  readonly requests: GeminiRequest[] = [];
  readonly problems: string[] = [];
  private server!: Server;
  private port = 0;
  private open = 0;

  private constructor(private readonly steps: ScriptStep[]) {}

  /** `steps` answer the requests in order, whichever run of the CLI sends them. */
  static async start(steps: ScriptStep[]): Promise<GeminiModelServer> {
    const s = new GeminiModelServer([...steps]);
    s.server = createServer((req, res) => void s.handle(req, res));
    await new Promise<void>((resolve) => s.server.listen(0, '127.0.0.1', resolve));
    s.port = (s.server.address() as AddressInfo).port;
    return s;
  }

  /** What GOOGLE_GEMINI_BASE_URL names. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** What the stub reported over every request. */
  reported(): StepUsage & { requests: number } {
    const sum = (f: (u: StepUsage) => number) => this.requests.reduce((a, r) => a + f(r.usage), 0);
    return { input: sum((u) => u.input), cached: sum((u) => u.cached ?? 0), output: sum((u) => u.output), requests: this.requests.length };
  }

  /** Throws naming every unexpected request, and the steps left when asked. */
  verify(o: { allStepsUsed?: boolean } = {}): void {
    const all = [...this.problems, ...(o.allStepsUsed && this.steps.length ? [`${this.steps.length} steps unused`] : [])];
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
      res.end(JSON.stringify({ error: { code: 400, message: `model stub: ${why}`, status: 'INVALID_ARGUMENT' } }));
    };
    const path = PATH.exec(req.url ?? '');
    if (req.method !== 'POST' || !path) return refuse(`unexpected ${req.method} ${req.url}`);
    let body: GeminiBody;
    try {
      body = JSON.parse(text) as GeminiBody;
    } catch {
      return refuse('a body that is not JSON');
    }
    if (!Array.isArray(body.contents)) return refuse('a request without contents');
    const key = req.headers['x-goog-api-key'];
    const record: GeminiRequest = {
      model: path[1]!,
      index: this.requests.length,
      body,
      userTexts: userTexts(body),
      outputs: outputs(body),
      usage: { input: 0, output: 0 },
      ...(typeof key === 'string' ? { key } : {}),
    };
    this.requests.push(record);
    const next = this.steps.shift();
    if (!next) return refuse(`request ${record.index} is past the script`);
    let step: ModelStep;
    try {
      step = typeof next === 'function' ? await next(record) : next;
    } catch (e) {
      return refuse(`the script's step ${record.index} failed: ${(e as Error).message}`);
    }
    record.usage = { ...DEFAULT_USAGE, ...step.usage };
    sendAnswer(res, step, record.usage, path[2] !== 'generateContent');
  }
}

function sendAnswer(res: ServerResponse, step: ModelStep, usage: StepUsage, streamed: boolean): void {
  const part =
    'exec' in step
      ? { functionCall: { name: 'run_shell_command', args: { command: step.exec, description: 'a step of the script' } } }
      : { text: step.say };
  const chunk = {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount: usage.input,
      cachedContentTokenCount: usage.cached ?? 0,
      candidatesTokenCount: usage.output,
      totalTokenCount: usage.input + usage.output,
    },
    modelVersion: 'gemini-stub',
  };
  if (!streamed) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(chunk));
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function userTexts(body: GeminiBody): string[] {
  return body.contents
    .filter((c) => c.role === 'user')
    .flatMap((c) => (c.parts ?? []).flatMap((p) => (typeof p.text === 'string' ? [p.text] : [])));
}

function outputs(body: GeminiBody): string[] {
  return body.contents.flatMap((c) =>
    (c.parts ?? []).flatMap((p) => (p.functionResponse ? [JSON.stringify(p.functionResponse.response)] : [])),
  );
}
