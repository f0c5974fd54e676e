// Gemini CLI's stream-json events as transcript lines: the session's start, a line per tool
// call with its target and per failed tool, the assistant's text, and the usage a run's result
// ends with. Its events carry a timestamp, which Claude Code's (whose `result` and `message`
// types it shares) do not: an event without one is not Gemini CLI's.
import { firstLine, num, oneLine, str, target, textLines, type Obj } from '../transcript-text.js';

const GEMINI_TYPES = new Set(['init', 'message', 'tool_use', 'tool_result', 'result', 'error']);

/** The lines of one event of Gemini CLI's stream; undefined when it is none of its events. */
export function geminiLines(e: Obj): string[] | undefined {
  if (typeof e.type !== 'string' || !GEMINI_TYPES.has(e.type) || typeof e.timestamp !== 'string') return undefined;
  switch (e.type) {
    case 'init':
      return [`gemini: session started${str(e.model) ? ` (${oneLine(str(e.model))})` : ''}`];
    case 'message':
      return e.role === 'assistant' && str(e.content).trim() ? textLines(str(e.content)) : [];
    case 'tool_use':
      return [`→ ${oneLine(str(e.tool_name)) || 'tool'}${target(e.parameters)}`];
    case 'tool_result':
      return e.status === 'success'
        ? []
        : [`  ✗ ${firstLine(str((e.error as Obj | null)?.message) || str(e.output)) || 'the tool call failed'}`];
    case 'error':
      return [`error: ${firstLine(str(e.message)) || 'unknown'}`];
    default:
      return [geminiResult(e)];
  }
}

function geminiResult(e: Obj): string {
  const s = (typeof e.stats === 'object' && e.stats !== null ? e.stats : {}) as Obj;
  const parts = [
    e.status === 'success' ? 'success' : 'error',
    `${num(s.input_tokens) ?? 0} in${num(s.cached) ? ` (${num(s.cached)} cached)` : ''}, ${num(s.output_tokens) ?? 0} out tokens`,
    num(s.tool_calls) ? `${num(s.tool_calls)} tool call(s)` : '',
    num(s.duration_ms) !== undefined ? `${Math.round(num(s.duration_ms)! / 100) / 10}s` : '',
  ].filter(Boolean);
  const said = e.status === 'success' ? '' : firstLine(str((e.error as Obj | null)?.message));
  return `result: ${parts.join(', ')}${said ? `: ${said}` : ''}`;
}
