import { isRefusal } from '../refusals.js';
import type { Output } from '../deps.js';
import type { Result } from './command.js';

/** Writes a verb's answer: one JSON object with --json, else its text. */
export function reportResult(result: Result, o: { json: boolean; out: Output }): void {
  if (result.printed) return;
  if (o.json) o.out.stdout(JSON.stringify({ ok: true, ...result.json }) + '\n');
  else if (result.text) o.out.stdout(result.text.endsWith('\n') ? result.text : result.text + '\n');
}

/** Turns anything thrown into text or JSON and an exit code. Returns the exit code. */
export function reportFailure(e: unknown, o: { json: boolean; debug: boolean; out: Output }): number {
  if (isRefusal(e)) {
    if (o.json) {
      const refusal = { code: e.code, exit: e.exit, message: e.message, data: e.data };
      o.out.stdout(JSON.stringify({ ok: false, refusal }) + '\n');
    } else {
      o.out.stderr(`abcd: ${e.message}\n`);
    }
    if (o.debug && e.stack) o.out.stderr(e.stack + '\n');
    return e.exit;
  }
  const message = e instanceof Error ? e.message : String(e);
  const hint = o.debug ? '' : ' (run again with --debug for the stack)';
  if (o.json) {
    o.out.stdout(JSON.stringify({ ok: false, refusal: { code: 'internal', exit: 1, message, data: {} } }) + '\n');
  }
  o.out.stderr(`abcd: internal error, this is a bug in abcd: ${message}${hint}\n`);
  if (o.debug && e instanceof Error && e.stack) o.out.stderr(e.stack + '\n');
  return 1;
}
