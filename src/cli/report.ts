// The one place a result or a refusal becomes text or JSON and an exit code.
import { isRefusal, type Refusal } from '../core/refusals.js';
import type { Output } from '../core/deps.js';
import { sanitizeText, stringifySafeJson } from '../core/sanitize.js';
import type { Result } from './command.js';
import { sanitizeOutput } from './render.js';

// Messages and answers quote records, ref names and git's stderr, all of which came from the
// remote. The verbs sanitize at the source; this is the last line of defence: text output
// keeps no control, bidi or invisible character but abcd's own colours, and JSON output
// writes each as a \u escape (the data reads back unchanged, the bytes stay inert).

/** Writes a verb's answer: one JSON object with --json, else its text. */
export function reportResult(result: Result, o: { json: boolean; out: Output }): void {
  if (result.printed) return;
  if (o.json && result.refusal) o.out.stdout(stringifySafeJson(refusalAnswer(result.refusal, result.refusal.exit)) + '\n');
  else if (o.json) o.out.stdout(stringifySafeJson({ ok: true, ...result.json }) + '\n');
  else if (result.text) {
    const text = sanitizeOutput(result.text, o.out.isTTY);
    o.out.stdout(text.endsWith('\n') ? text : text + '\n');
  }
}

/** The --json answer of a refusal: every `ok:false` has this shape (`abcd schema`). */
function refusalAnswer(e: Refusal, exit: number) {
  return { ok: false, refusal: { code: e.code, exit, message: sanitizeText(e.message), data: e.data } };
}

/** Turns anything thrown into text or JSON and an exit code. Returns the exit code. */
export function reportFailure(
  e: unknown,
  o: { json: boolean; debug: boolean; out: Output; exitOf?: (e: unknown, exit: number) => number },
): number {
  const exitOf = o.exitOf ?? ((_e: unknown, exit: number) => exit);
  if (isRefusal(e)) {
    const message = sanitizeText(e.message);
    const exit = exitOf(e, e.exit);
    if (o.json) o.out.stdout(stringifySafeJson(refusalAnswer(e, exit)) + '\n');
    else o.out.stderr(`abcd: ${message}\n`);
    if (o.debug && e.stack) o.out.stderr(sanitizeText(e.stack) + '\n');
    return exit;
  }
  const message = sanitizeText(e instanceof Error ? e.message : String(e));
  const hint = o.debug ? '' : ' (run again with --debug for the stack)';
  const exit = exitOf(e, 1);
  if (o.json) {
    o.out.stdout(stringifySafeJson({ ok: false, refusal: { code: 'internal', exit, message, data: {} } }) + '\n');
  }
  o.out.stderr(`abcd: internal error, this is a bug in abcd: ${message}${hint}\n`);
  if (o.debug && e instanceof Error && e.stack) o.out.stderr(sanitizeText(e.stack) + '\n');
  return exit;
}
