// vitest does not type-check, so the refusal data contracts (ADR 0043) are pinned in
// refusal-types.check.ts and compiled here: a field renamed or dropped in src/core/refusal-table.ts,
// or an @ts-expect-error there that no longer errs, fails this test.
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

describe('refusal data types', () => {
  it('refusal-types.check.ts compiles: the pinned contracts hold and each forbidden site is refused', () => {
    const file = fileURLToPath(new URL('./refusal-types.check.ts', import.meta.url));
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      // Only what the checked files need: the DOM and node typings would triple the parse.
      lib: ['lib.es2022.d.ts'],
      types: [],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
    });
    const errors = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file && d.start !== undefined ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : '';
      return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
    });
    expect(errors).toEqual([]);
  });
});
