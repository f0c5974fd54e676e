// Compiled, never run, by test/refusal-types.test.ts: the --json contract of the refusals
// (ADR 0043), read from the one table (src/core/refusal-table.ts). Each @ts-expect-error must
// still err, so a check that stops biting fails too.
import { expectTypeOf } from 'vitest';
import * as refusals from '../../src/core/refusals.js';
import {
  DeadlineReached,
  Held,
  Refusal,
  RemoteUnavailable,
  UsageError,
  type DeadlineReachedData,
  type HeldData,
  type Outcome,
  type RefusalClassCode,
  type RefusalData,
  type RefusalDataOf,
  type RemoteUnavailableData,
} from '../../src/core/refusals.js';
import type { RefusalExitOf } from '../../src/core/refusal-table.js';

/** Every refusal class abcd exports, as its instance type. */
type Classes = {
  [K in keyof typeof refusals]: (typeof refusals)[K] extends abstract new (...a: never[]) => infer I
    ? I extends Refusal
      ? I
      : never
    : never;
}[keyof typeof refusals];
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** The codes whose class disagrees with its row: data or exit not the row's. */
type Disagrees<I> = I extends { code: infer C extends RefusalClassCode; data: infer D; exit: infer E }
  ? Same<D, RefusalDataOf<C>> extends true
    ? Same<E, RefusalExitOf<C>> extends true
      ? never
      : C
    : C
  : never;

export function pinContracts(e: unknown): void {
  // Every class is made from its row, and every row but internal has a class.
  expectTypeOf<Disagrees<Classes>>().toEqualTypeOf<never>();
  expectTypeOf<Exclude<RefusalClassCode, Classes['code']>>().toEqualTypeOf<never>();

  expectTypeOf<HeldData>().toHaveProperty('item').toEqualTypeOf<string>();
  expectTypeOf<HeldData>().toHaveProperty('holder').toEqualTypeOf<string | undefined>();
  expectTypeOf<RemoteUnavailableData>().toHaveProperty('outcome').toEqualTypeOf<Outcome>();
  expectTypeOf<DeadlineReachedData>().toHaveProperty('waitedMs').toEqualTypeOf<number | undefined>();
  expectTypeOf<Held['data']>().toEqualTypeOf<HeldData>();
  expectTypeOf<Held['code']>().toEqualTypeOf<'held'>();
  expectTypeOf<Held['exit']>().toEqualTypeOf<3>();
  // Every typed refusal is still a Refusal, so report.ts renders any of them.
  expectTypeOf<Held>().toExtend<Refusal>();

  // A site must pass the fields every site passes...
  // @ts-expect-error outcome is required: exit 8 always says whether the remote changed
  new RemoteUnavailable('m', { remote: 'origin' });
  // @ts-expect-error Held's data names the item
  new Held('m');
  // ...and no field the contract does not name (add it to the row in src/core/refusal-table.ts first).
  // @ts-expect-error a misspelt field
  new Held('m', { item: 'a', ref: 'r', holdr: 'x' });
  new DeadlineReached('m', { waitedOn: 'load-gate', waitedMs: 1 });

  // A usage refusal names the kind of input that was bad, and its data is that kind's.
  new UsageError('m', 'argument');
  new UsageError('m', 'branch', { branch: 'main' });
  expectTypeOf(new UsageError('m', 'argument').kind).toEqualTypeOf<refusals.UsageKind>();
  // @ts-expect-error the kind is not optional
  new UsageError('m');
  // @ts-expect-error a kind that names something carries it
  new UsageError('m', 'branch');
  // @ts-expect-error the data of another kind
  new UsageError('m', 'branch', { tag: 'v1' });
  // @ts-expect-error an argument described in full by its message carries no data
  new UsageError('m', 'argument', { flag: '--wait' });

  if (e instanceof RemoteUnavailable) {
    expectTypeOf(e.data.outcome).toEqualTypeOf<Outcome>();
    // @ts-expect-error a read of a field no site writes
    void e.data.outcom;
  }
  // A refusal class not made from the table takes any record, or none.
  class Untyped extends Refusal {
    readonly code = 'untyped';
    readonly exit = 3;
  }
  new Untyped('m');
  expectTypeOf(new Untyped('m', { any: 1 }).data).toEqualTypeOf<RefusalData>();
}
