// Claude Code's stream-json messages as transcript lines: a line per tool call with its target,
// the assistant's text, a failed tool's error, and the usage a turn's result ends with. Replays
// of abcd's own input and events nothing reads give no line.
import { blocks, firstLine, num, str, target, textLines, type Obj } from '../transcript-text.js';

const CLAUDE_TYPES = new Set(['system', 'assistant', 'user', 'result', 'stream_event', 'rate_limit_event', 'control_response']);

/** The lines of one event of Claude Code's stream; undefined when it is none of its types. */
export function claudeLines(e: Obj): string[] | undefined {
  if (typeof e.type !== 'string' || !CLAUDE_TYPES.has(e.type)) return undefined;
  // Claude Code's result always names its subtype; a result without one is another runtime's.
  if (e.type === 'result' && typeof e.subtype !== 'string') return undefined;
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
