// One line of a runtime's stream as transcript lines: Claude Code's stream-json messages and
// Codex's JSONL events become a line per tool call (with its target), the assistant's text,
// errors, and the usage a turn ends with. A JSON line of neither shape, or an event nothing
// reads (the init's tool list, partial deltas, replays of abcd's own input), gives no line.
// The stream is the agent's: hostile, so every field is checked before it is shown.

// A tool call's target, one line.
const TARGET_CHARS = 160;

type Obj = Record<string, unknown>;

const CLAUDE_TYPES = new Set(['system', 'assistant', 'user', 'result', 'stream_event', 'rate_limit_event', 'control_response']);
const CODEX_TYPES = new Set([
  'thread.started',
  'turn.started',
  'turn.completed',
  'turn.failed',
  'item.started',
  'item.updated',
  'item.completed',
  'error',
]);

/** The transcript lines of one stream line that is JSON, or undefined when it is not a runtime's event. */
export function eventLines(line: string): string[] | undefined {
  if (!line.startsWith('{')) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const e = v as Obj;
  if (typeof e.type !== 'string') return [];
  if (CODEX_TYPES.has(e.type)) return codexLines(e);
  if (CLAUDE_TYPES.has(e.type)) return claudeLines(e);
  // Some other JSON the runtime printed: never shown raw.
  return [];
}

function claudeLines(e: Obj): string[] {
  if (e.type === 'system') return e.subtype === 'init' ? [`claude: session started${str(e.model) ? ` (${str(e.model)})` : ''}`] : [];
  if (e.type === 'assistant') return blocks(e.message).flatMap(assistantBlock);
  if (e.type === 'user') return e.isReplay === true ? [] : blocks(e.message).flatMap(toolResult);
  if (e.type === 'result') return [claudeResult(e)];
  return [];
}

function assistantBlock(b: Obj): string[] {
  if (b.type === 'text' && str(b.text).trim()) return textLines(str(b.text));
  if (b.type === 'tool_use' && str(b.name)) return [`→ ${str(b.name).slice(0, 60)}${target(b.input)}`];
  return [];
}

function toolResult(b: Obj): string[] {
  if (b.type !== 'tool_result' || b.is_error !== true) return [];
  const c = b.content;
  const text = typeof c === 'string' ? c : Array.isArray(c) ? c.map((x) => str((x as Obj | null)?.text)).join(' ') : '';
  return [`  ✗ ${firstLine(text) || 'the tool call failed'}`];
}

function claudeResult(e: Obj): string {
  const u = (typeof e.usage === 'object' && e.usage !== null ? e.usage : {}) as Obj;
  const ok = e.subtype === 'success' && e.is_error !== true;
  const parts = [
    ok ? 'success' : str(e.subtype) || 'error',
    num(e.num_turns) !== undefined ? `${num(e.num_turns)} turn(s)` : '',
    `${num(u.input_tokens) ?? 0} in, ${num(u.output_tokens) ?? 0} out tokens`,
    num(u.cache_read_input_tokens) ? `${num(u.cache_read_input_tokens)} cache read` : '',
    typeof e.total_cost_usd === 'number' && Number.isFinite(e.total_cost_usd) ? `$${e.total_cost_usd.toFixed(4)}` : '',
    num(e.duration_ms) !== undefined ? `${Math.round(num(e.duration_ms)! / 100) / 10}s` : '',
  ].filter(Boolean);
  const said = ok ? '' : firstLine(str(e.result));
  return `result: ${parts.join(', ')}${said ? `: ${said}` : ''}`;
}

function codexLines(e: Obj): string[] {
  switch (e.type) {
    case 'thread.started':
      return ['codex: thread started'];
    case 'turn.completed': {
      const u = (typeof e.usage === 'object' && e.usage !== null ? e.usage : {}) as Obj;
      const cached = num(u.cached_input_tokens);
      return [`usage: ${num(u.input_tokens) ?? 0} in${cached ? ` (${cached} cached)` : ''}, ${num(u.output_tokens) ?? 0} out tokens`];
    }
    case 'turn.failed':
      return [`turn failed: ${firstLine(str((e.error as Obj | null)?.message)) || 'no reason given'}`];
    case 'error':
      return [`error: ${firstLine(str(e.message)) || 'unknown'}`];
    case 'item.completed':
      return codexItem(e.item);
    default:
      return [];
  }
}

function codexItem(item: unknown): string[] {
  if (typeof item !== 'object' || item === null) return [];
  const i = item as Obj;
  switch (i.type) {
    case 'command_execution':
      return [`→ $ ${oneLine(str(i.command))}${typeof i.exit_code === 'number' ? ` (exit ${i.exit_code})` : ''}`];
    case 'agent_message':
      return textLines(str(i.text));
    case 'file_change': {
      const paths = Array.isArray(i.changes) ? i.changes.map((c) => str((c as Obj | null)?.path)).filter(Boolean) : [];
      return [`→ edit ${oneLine(paths.join(', ')) || '(files)'}`];
    }
    case 'mcp_tool_call':
      return [`→ ${oneLine(`${str(i.server)} ${str(i.tool)}`.trim()) || 'tool call'}`];
    case 'web_search':
      return [`→ search ${oneLine(str(i.query))}`];
    case 'error':
      return [`codex: ${firstLine(str(i.message))}`];
    default:
      return [];
  }
}

/** What a tool call works on: the file it edits, the command it runs, the pattern it looks for. */
function target(input: unknown): string {
  if (typeof input !== 'object' || input === null) return '';
  const i = input as Obj;
  const t = [i.file_path, i.command, i.path, i.pattern, i.url, i.query, i.description].find((v) => typeof v === 'string' && v.trim());
  return typeof t === 'string' ? ` ${oneLine(t)}` : '';
}

function blocks(message: unknown): Obj[] {
  const content = (message as { content?: unknown } | null | undefined)?.content;
  return Array.isArray(content) ? content.filter((b): b is Obj => typeof b === 'object' && b !== null) : [];
}

function textLines(text: string): string[] {
  return text
    .trim()
    .split('\n')
    .map((l) => `  ${l}`.trimEnd());
}

function oneLine(t: string): string {
  const s = t.replace(/\s+/g, ' ').trim();
  return s.length > TARGET_CHARS ? `${s.slice(0, TARGET_CHARS - 1)}…` : s;
}

function firstLine(t: string): string {
  return oneLine(t.split('\n').find((l) => l.trim()) ?? '');
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}
