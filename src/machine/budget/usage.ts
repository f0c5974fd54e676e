// What one cycle's agent used, in one shape every runtime fills, and the arithmetic on it.
// Runtimes report numbers the agent (hostile) or its model server chose: every sum here is
// capped, so no report, however large, is written as a number a reader refuses.
import { sanitizeLine } from '../../core/sanitize.js';

// A model name or session id in a result record: one safe line, bounded.
const MAX_NAME_CHARS = 200;

/**
 * What one cycle's agent used, as its runtime reported it: Claude Code's and Codex's own
 * result messages, or the `command` runtime's usage lines. Every count is a whole number
 * capped at 2^53 - 1; `costUsd` is what the runtime said it cost (0 when it says nothing).
 * The token kinds are disjoint: a runtime whose API counts cached tokens inside its input
 * count subtracts them from `inputTokens`.
 */
export interface CycleUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Tokens reported without a kind (the `command` runtime's `{"tokens":n}` lines). */
  otherTokens?: number;
  costUsd: number;
  /** Model turns (requests) the agent made. */
  turns: number;
  model?: string;
  /** The runtime's own session or thread id (what a resume continues). */
  sessionId?: string;
  /** Usage lines the `command` runtime could not read (hostile or broken): counted, never debited. */
  ignoredLines?: number;
  /** Where the token counts come from: the API's own answers (through abcd's model gateway) or the runtime's report. */
  source?: 'api' | 'runtime';
}

/** The most one cycle, one debit or one pool holds in dollars: far beyond any real spend, and finite. */
export const MAX_COST_USD = 1e9;

/** A cycle that used nothing yet. */
export function emptyUsage(): CycleUsage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, turns: 0 };
}

/** A count made safe: a whole number in 0..2^53-1 (anything else, NaN included, is 0 or the cap). */
export function safeCount(n: number): number {
  if (Number.isNaN(n) || n <= 0) return 0;
  return Math.min(Number.MAX_SAFE_INTEGER, Math.floor(n));
}

/** Dollars made safe: finite, in 0..MAX_COST_USD. */
export function safeUsd(n: number): number {
  if (Number.isNaN(n) || n <= 0) return 0;
  return Math.min(MAX_COST_USD, n);
}

/**
 * Dollars as a pool keeps them: safe, and rounded to a billionth, so that a pool of 0.03 less
 * three debits of 0.01 is 0, not the 7e-18 that floating point leaves (which would let a cycle start).
 */
export function poolUsd(n: number): number {
  return Number(safeUsd(n).toFixed(9));
}

/** Two counts added without passing 2^53 - 1. */
export function addCounts(a: number, b: number): number {
  return safeCount(safeCount(a) + safeCount(b));
}

/**
 * Two usages as one (a cycle's turns, a run's cycles): counts and dollars summed and capped;
 * the later one's model and session id win, as the later turn is the one a resume continues.
 */
export function addUsage(a: CycleUsage, b: CycleUsage): CycleUsage {
  const other = addCounts(a.otherTokens ?? 0, b.otherTokens ?? 0);
  const ignored = addCounts(a.ignoredLines ?? 0, b.ignoredLines ?? 0);
  const model = b.model ?? a.model;
  const sessionId = b.sessionId ?? a.sessionId;
  return {
    inputTokens: addCounts(a.inputTokens, b.inputTokens),
    outputTokens: addCounts(a.outputTokens, b.outputTokens),
    cacheReadTokens: addCounts(a.cacheReadTokens, b.cacheReadTokens),
    cacheWriteTokens: addCounts(a.cacheWriteTokens, b.cacheWriteTokens),
    ...(other ? { otherTokens: other } : {}),
    costUsd: safeUsd(safeUsd(a.costUsd) + safeUsd(b.costUsd)),
    turns: addCounts(a.turns, b.turns),
    ...(model !== undefined ? { model } : {}),
    ...(sessionId !== undefined ? { sessionId } : {}),
    ...(ignored ? { ignoredLines: ignored } : {}),
    ...((b.source ?? a.source) ? { source: b.source ?? a.source } : {}),
  };
}

/**
 * What a session used after `before`, both read from the same session (its totals only grow):
 * the part of a later reading still to debit. A count that went down (a runtime that restarted
 * its totals) counts as nothing more, never as a refund.
 */
export function usageSince(after: CycleUsage, before: CycleUsage): CycleUsage {
  const less = (a: number, b: number) => Math.max(0, safeCount(a) - safeCount(b));
  const other = less(after.otherTokens ?? 0, before.otherTokens ?? 0);
  return {
    inputTokens: less(after.inputTokens, before.inputTokens),
    outputTokens: less(after.outputTokens, before.outputTokens),
    cacheReadTokens: less(after.cacheReadTokens, before.cacheReadTokens),
    cacheWriteTokens: less(after.cacheWriteTokens, before.cacheWriteTokens),
    ...(other ? { otherTokens: other } : {}),
    costUsd: Math.max(0, safeUsd(after.costUsd) - safeUsd(before.costUsd)),
    turns: less(after.turns, before.turns),
    ...(after.model !== undefined ? { model: after.model } : {}),
    ...(after.sessionId !== undefined ? { sessionId: after.sessionId } : {}),
  };
}

/**
 * The tokens a usage takes off the pool: every kind, cache reads and writes included (ADR
 * 0073). The token pool bounds how much the model processed, not what it cost: the dollar
 * pool is the one that weighs kinds by price.
 */
export function debitedTokens(u: CycleUsage): number {
  return [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.otherTokens ?? 0].reduce(addCounts, 0);
}

/** Whether a usage reports anything at all (a debit, or lines worth naming in the result). */
export function reportsAnything(u: CycleUsage): boolean {
  return debitedTokens(u) > 0 || safeUsd(u.costUsd) > 0 || u.turns > 0 || (u.ignoredLines ?? 0) > 0;
}

/**
 * What a cycle's result record says of its usage: `usage` (the tokens debited, as older readers
 * know it) and `spend` (by kind, with cost), both absent when the runtime reported nothing.
 */
export function recordedUsage(u: CycleUsage): { usage?: number; spend?: CycleUsage } {
  if (!reportsAnything(u)) return {};
  const tokens = debitedTokens(u);
  const spend: CycleUsage = {
    ...addUsage(emptyUsage(), { ...u, model: undefined, sessionId: undefined }),
    ...(u.model ? { model: sanitizeLine(u.model, MAX_NAME_CHARS) } : {}),
    ...(u.sessionId ? { sessionId: sanitizeLine(u.sessionId, MAX_NAME_CHARS) } : {}),
    ...(u.source ? { source: u.source } : {}),
  };
  return { ...(tokens ? { usage: tokens } : {}), spend };
}
