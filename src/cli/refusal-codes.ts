// What --help says about refusals, made from the one table (src/core/refusal-table.ts): the
// exit-code lines of a verb's help from the codes the verb can give.
import { REFUSALS, type RefusalCode } from '../core/refusal-table.js';

/** Codes any verb can give: a bad command line, and a bug. */
export const EVERY_VERB: readonly RefusalCode[] = ['usage', 'internal'];

/** The codes a verb can give: those it declares, then the ones every verb can. */
export function codesOf(declared: readonly RefusalCode[]): RefusalCode[] {
  return [...new Set<RefusalCode>([...declared, ...EVERY_VERB])];
}

/** The exit-code lines of a verb's --help, from the codes it can give. */
export function describeExits(codes: readonly RefusalCode[]): string {
  const byExit = new Map<number, RefusalCode[]>();
  for (const c of codesOf(codes)) byExit.set(REFUSALS[c].exit, [...(byExit.get(REFUSALS[c].exit) ?? []), c]);
  const lines = [...byExit.entries()].sort((a, b) => a[0] - b[0]).map(([exit, cs]) => `  ${String(exit).padStart(3)}  ${cs.join(', ')}`);
  return ['Exit codes (refusal codes in --json):', '    0  done', ...lines].join('\n');
}
