// Compiled, never run, by test/refusal-types.test.ts: the --json contract of a few refusals
// (ADR 0043). Each @ts-expect-error must still err, so a check that stops biting fails too.
import { expectTypeOf } from 'vitest';
import {
  DeadlineReached,
  Held,
  Refusal,
  RemoteUnavailable,
  UsageError,
  type DeadlineReachedData,
  type HeldData,
  type Outcome,
  type RefusalData,
  type RemoteUnavailableData,
} from '../src/core/refusals.js';

export function pinContracts(e: unknown): void {
  expectTypeOf<HeldData>().toHaveProperty('item').toEqualTypeOf<string>();
  expectTypeOf<HeldData>().toHaveProperty('holder').toEqualTypeOf<string | undefined>();
  expectTypeOf<RemoteUnavailableData>().toHaveProperty('outcome').toEqualTypeOf<Outcome>();
  expectTypeOf<DeadlineReachedData>().toHaveProperty('waitedMs').toEqualTypeOf<number | undefined>();
  expectTypeOf<Held['data']>().toEqualTypeOf<HeldData>();
  // Every typed refusal is still a Refusal, so report.ts renders any of them.
  expectTypeOf<Held>().toExtend<Refusal>();

  // A site must pass the fields every site passes...
  // @ts-expect-error outcome is required: exit 8 always says whether the remote changed
  new RemoteUnavailable('m', { remote: 'origin' });
  // @ts-expect-error Held's data names the item
  new Held('m');
  // ...and no field the contract does not name (add it to src/core/refusal-data.ts first).
  // @ts-expect-error a misspelt field
  new Held('m', { item: 'a', ref: 'r', holdr: 'x' });
  new DeadlineReached('m', { waitedOn: 'load-gate', waitedMs: 1 });
  // Usage errors describe the bad input; their extra context is free.
  new UsageError('m');
  new UsageError('m', { flag: '--wait' });

  if (e instanceof RemoteUnavailable) {
    expectTypeOf(e.data.outcome).toEqualTypeOf<Outcome>();
    // @ts-expect-error a read of a field no site writes
    void e.data.outcom;
  }
  // A refusal class not yet typed takes any record, or none.
  class Untyped extends Refusal {
    readonly code = 'untyped';
    readonly exit = 3;
  }
  new Untyped('m');
  expectTypeOf(new Untyped('m', { any: 1 }).data).toEqualTypeOf<RefusalData>();
}
