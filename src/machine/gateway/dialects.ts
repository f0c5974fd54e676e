// What the model gateway knows of each model API it carries, its "dialect": the endpoints an
// agent may call (below the upstream's own path prefix), the shape of an error the API's
// clients report as the API's own, and where an answer says what it used. One gateway serves
// every dialect; what differs between the APIs is here and nowhere else. The answer is the
// model server's: its numbers are made safe (usage.ts), never trusted to be sane.
import { safeCount, type CycleUsage } from '../budget/usage.js';

/**
 * `messages`: Anthropic's Messages API (Claude Code). `responses`: OpenAI's Responses API (Codex).
 * `gemini`: Google's Gemini API (Gemini CLI).
 */
export type DialectName = 'messages' | 'responses' | 'gemini';

export interface GatewayError {
  status: number;
  type: string;
  code: string;
  message: string;
}

export interface Dialect {
  readonly name: DialectName;
  /** The API's name in messages. */
  readonly title: string;
  readonly endpoints: readonly { method: string; path: RegExp }[];
  /** Query parameters that carry a credential the agent brought: never passed on. */
  readonly droppedQuery?: readonly string[];
  /** An error body in the API's own shape. */
  errorBody(e: GatewayError): object;
  /** Reads one streamed event's JSON into `u`; true when it carried usage. */
  readEvent(v: Record<string, unknown>, u: CycleUsage): boolean;
  /** Reads a whole JSON answer into `u`; true when it carried usage. */
  readBody(v: Record<string, unknown>, u: CycleUsage): boolean;
}

const messages: Dialect = {
  name: 'messages',
  title: 'Messages API',
  endpoints: [
    // Claude Code checks the server is there before its first request.
    { method: 'HEAD', path: /^\/$/ },
    { method: 'POST', path: /^\/v1\/messages$/ },
    { method: 'POST', path: /^\/v1\/messages\/count_tokens$/ },
  ],
  errorBody: (e) => ({ type: 'error', error: { type: e.type, message: e.message } }),
  readEvent(v, u) {
    if (v.type === 'message_start' && isObject(v.message)) {
      if (typeof v.message.model === 'string') u.model = v.message.model;
      return fromMessages(v.message.usage, true, u);
    }
    return v.type === 'message_delta' && fromMessages(v.usage, false, u);
  },
  readBody(v, u) {
    if (typeof v.model === 'string') u.model = v.model;
    return fromMessages(v.usage, true, u);
  },
};

const responses: Dialect = {
  name: 'responses',
  title: 'Responses API',
  endpoints: [
    { method: 'POST', path: /^\/responses$/ },
    { method: 'GET', path: /^\/models$/ },
  ],
  errorBody: (e) => ({ error: { message: e.message, type: e.type, code: e.code } }),
  readEvent(v, u) {
    // Only the finished answer's usage counts: `response.created` and `.in_progress` carry a
    // `response` whose usage is still empty, and a failed or cut-off answer names none.
    if (v.type !== 'response.completed' || !isObject(v.response)) return false;
    if (typeof v.response.model === 'string') u.model = v.response.model;
    return fromResponses(v.response.usage, u);
  },
  readBody(v, u) {
    if (typeof v.model === 'string') u.model = v.model;
    return fromResponses(v.usage, u);
  },
};

// The Gemini API names its errors by their gRPC status; its clients read `error.status`.
const GOOGLE_STATUS: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  403: 'PERMISSION_DENIED',
  502: 'UNAVAILABLE',
};

const gemini: Dialect = {
  name: 'gemini',
  title: 'Gemini API',
  endpoints: [
    // A turn's answers stream (`?alt=sse`); a routing classifier asks for a whole one; a long
    // conversation is measured before it is compressed.
    { method: 'POST', path: /^\/v1beta\/models\/[A-Za-z0-9._-]+:streamGenerateContent$/ },
    { method: 'POST', path: /^\/v1beta\/models\/[A-Za-z0-9._-]+:generateContent$/ },
    { method: 'POST', path: /^\/v1beta\/models\/[A-Za-z0-9._-]+:countTokens$/ },
  ],
  // The API also takes its key as `?key=`: the agent's is dropped, the real one goes as a header.
  droppedQuery: ['key'],
  errorBody: (e) => ({
    error: {
      code: e.status,
      message: e.message,
      status: GOOGLE_STATUS[e.status] ?? 'UNKNOWN',
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: e.code, domain: 'abcd' }],
    },
  }),
  // Every streamed chunk carries the answer's usage so far; the last one is the whole answer's.
  readEvent: (v, u) => fromGemini(v, u),
  readBody: (v, u) => fromGemini(v, u),
};

export const DIALECTS: Readonly<Record<DialectName, Dialect>> = { messages, responses, gemini };

/**
 * Messages API: `message_start` carries the input side and a first output count;
 * `message_delta` the output count so far (cumulative), and on some servers the input side too.
 */
function fromMessages(usage: unknown, start: boolean, u: CycleUsage): boolean {
  if (!isObject(usage)) return false;
  if (start || usage.input_tokens !== undefined) u.inputTokens = count(usage.input_tokens);
  if (start || usage.cache_read_input_tokens !== undefined) u.cacheReadTokens = count(usage.cache_read_input_tokens);
  if (start || usage.cache_creation_input_tokens !== undefined) u.cacheWriteTokens = count(usage.cache_creation_input_tokens);
  if (usage.output_tokens !== undefined) u.outputTokens = count(usage.output_tokens);
  return true;
}

/** Responses API: cached tokens are counted inside input_tokens; the kinds abcd keeps are disjoint. */
function fromResponses(usage: unknown, u: CycleUsage): boolean {
  if (!isObject(usage)) return false;
  const cached = isObject(usage.input_tokens_details) ? count(usage.input_tokens_details.cached_tokens) : 0;
  const input = count(usage.input_tokens);
  u.cacheReadTokens = Math.min(cached, input);
  u.inputTokens = input - u.cacheReadTokens;
  u.outputTokens = count(usage.output_tokens);
  return true;
}

/**
 * Gemini API: `promptTokenCount` holds the cached part (`cachedContentTokenCount`) and the
 * prompt a tool's use added is counted apart (`toolUsePromptTokenCount`); the model's thinking
 * (`thoughtsTokenCount`) is not in `candidatesTokenCount` and is billed as output, so it counts
 * as output here. Each chunk's numbers replace the last's: they are the answer's so far.
 */
function fromGemini(v: Record<string, unknown>, u: CycleUsage): boolean {
  const usage = v.usageMetadata;
  if (!isObject(usage)) return false;
  if (typeof v.modelVersion === 'string') u.model = v.modelVersion;
  const prompt = count(usage.promptTokenCount);
  u.cacheReadTokens = Math.min(count(usage.cachedContentTokenCount), prompt);
  u.inputTokens = safeCount(prompt - u.cacheReadTokens + count(usage.toolUsePromptTokenCount));
  u.outputTokens = safeCount(count(usage.candidatesTokenCount) + count(usage.thoughtsTokenCount));
  return true;
}

function count(v: unknown): number {
  return typeof v === 'number' ? safeCount(v) : 0;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
