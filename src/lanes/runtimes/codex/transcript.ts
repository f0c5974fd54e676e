// Codex's JSONL events as transcript lines: a line per command with its exit, per edit, tool
// call and search, the agent's messages, errors, and the usage a turn completes with.
import { firstLine, num, oneLine, str, textLines, type Obj } from '../transcript-text.js';

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

/** The lines of one event of Codex's stream; undefined when it is none of its types. */
export function codexLines(e: Obj): string[] | undefined {
  if (typeof e.type !== 'string' || !CODEX_TYPES.has(e.type)) return undefined;
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
