// The shape of every verb's --json answer, one zod schema each: `abcd schema [verb]` publishes
// them as JSON Schema and test/json-schema.test.ts checks every verb's real answer against
// them. The vocabulary (ADR 0030): the same name for the same thing in every verb; durations
// in integer ms named *Ms; instants as ISO 8601 UTC with milliseconds; optional keys present
// as null; `claimTip` is a claim generation's commit, `tip` a commit the verb put on main.
// Loaded only by `abcd schema` and tests: zod stays off the path of `abcd --help`.
import { z } from 'zod';
import { REFUSALS, type RefusalCode } from '../core/refusal-table.js';
import { codesOf } from './refusal-codes.js';

const Instant = z.iso.datetime({ precision: 3 }).describe('an instant, ISO 8601 UTC with milliseconds');
const Ms = z.number().int().describe('a duration in milliseconds');
const Oid = z
  .string()
  .regex(/^[0-9a-f]{40}$/)
  .describe('a commit id');
const State = z.enum(['held', 'released', 'done']).describe("the claim's state after the verb");
const Ok = { ok: z.literal(true) };

/** A refusal answer with one of these codes, each described by its row in the refusal table. */
export function refusalAnswer(codes: readonly RefusalCode[]) {
  const [first, ...rest] = codes.map((code) =>
    z.object({
      code: z.literal(code).describe(`${REFUSALS[code].means}: ${REFUSALS[code].todo}`),
      exit: z.number().int(),
      message: z.string(),
      data: z.record(z.string(), z.unknown()),
    }),
  );
  if (!first) throw new Error('a refusal answer needs at least one code');
  return z.object({ ok: z.literal(false), refusal: z.discriminatedUnion('code', [first, ...rest]) });
}

/** A refusal answer with any code abcd has. */
export const RefusalAnswer = refusalAnswer(Object.keys(REFUSALS) as RefusalCode[]);

const ClaimAnswer = {
  ...Ok,
  item: z.string(),
  ref: z.string(),
  claimTip: Oid,
  gen: z.number().int(),
  state: State,
  expiresAt: Instant,
  ttlMs: Ms,
};

const reserve = z.object({
  ...ClaimAnswer,
  state: z.literal('held'),
  holder: z.string(),
  renewed: z.boolean(),
  reopened: z.boolean().describe('the item had landed and --reopen reserved it again'),
  tookOverFrom: z.string().nullable(),
  waitedMs: Ms.describe('0 when nothing was waited on'),
});

const renew = z.object({ ...ClaimAnswer, written: z.boolean() });
const release = z.union([
  z.object({
    ...ClaimAnswer,
    written: z.boolean().describe('false when there was nothing to write: the item had landed, or this session released it already'),
    already: z.boolean().describe('this session had released it already'),
  }),
  z
    .object({ ...Ok, item: z.string(), claimTip: Oid.nullable(), cleared: z.boolean() })
    .loose()
    .describe('release --force'),
]);

const push = z.object({
  ...Ok,
  item: z.string(),
  branch: z.string(),
  head: Oid,
  tags: z.array(z.string()),
  claimTip: Oid,
  gen: z.number().int(),
  expiresAt: Instant,
});

const land = z.object({
  ...Ok,
  item: z.string(),
  main: z.string(),
  tip: Oid.describe("main's tip after landing"),
  previousTip: Oid.nullable().describe("main's tip the landing was tested on (git forge)"),
  github: z.object({ number: z.number().int(), url: z.string().nullable(), via: z.string(), fenceWindowMs: Ms }).nullable(),
  head: Oid,
  branch: z.string(),
  attempts: z.number().int(),
  checks: z.array(z.object({ command: z.string(), exitCode: z.number().int(), durationMs: Ms })),
  checksSandbox: z.enum(['bwrap', 'none']).optional().describe('where the checks ran: bubblewrap, or unsandboxed as the person'),
  warning: z.string().optional().describe('said when the checks ran unsandboxed for want of a sandbox'),
  enqueuedAt: Instant,
  waitedMs: Ms,
  state: State,
});

const RefusedRecord = z.object({
  ref: z.string(),
  code: z.string(),
  exit: z.number().int(),
  message: z.string(),
  data: z.record(z.string(), z.unknown()),
});

const status = z.object({
  ...Ok,
  remote: z.string(),
  readAt: Instant,
  session: z.string(),
  claims: z.array(
    z.object({
      item: z.string(),
      ref: z.string(),
      state: State,
      holder: z.string(),
      gen: z.number().int(),
      claimTip: Oid,
      at: Instant,
      ageMs: Ms.describe('since the holder took it, not since the last renewal'),
      takenAt: Instant,
      ttlMs: Ms,
      expiresAt: Instant,
      expiresInMs: Ms,
      stale: z.boolean(),
      takeableAt: Instant.nullable(),
      mine: z.boolean(),
      note: z.string().nullable(),
      branch: z.string().nullable(),
      head: Oid.nullable(),
      landed: z.object({ main: z.string(), tip: Oid }).nullable(),
    }),
  ),
  queue: z.array(
    z.object({
      position: z.number().int(),
      item: z.string(),
      holder: z.string(),
      branch: z.string(),
      head: Oid,
      main: z.string(),
      since: Instant,
      alive: z.boolean(),
    }),
  ),
  announcements: z.array(
    z.object({
      session: z.string(),
      ref: z.string(),
      state: z.string(),
      item: z.string().nullable(),
      text: z.string(),
      at: Instant,
      expiresAt: Instant,
      mine: z.boolean(),
    }),
  ),
  gate: z.object({ dir: z.string(), slots: z.number().int(), holders: z.number().int(), waiters: z.number().int() }),
  settings: z
    .object({ reservationCap: z.number().int(), defaultTtl: Ms, takeoverDelay: Ms, doneRetention: Ms, requesters: z.array(z.string()) })
    .loose(),
  settingsTrust: z.object({ protected: z.boolean(), signers: z.string() }).loose(),
  refused: z.array(RefusedRecord),
  unknown: z.array(z.string()),
  pruned: z.number().int(),
  lanes: z.array(
    z
      .object({
        runId: z.string(),
        verb: z.string(),
        state: z.enum(['running', 'finished', 'lost']),
        startedAt: Instant,
        at: Instant,
        end: z.string().nullable(),
        lost: z
          .object({
            why: z
              .enum(['process-gone', 'not-renewed'])
              .describe(
                'process-gone: the run was on this computer and its process no longer runs; not-renewed: its record was not rewritten within its ttl',
              ),
            lastSeenAt: Instant.describe('when the run last rewrote its record, by its own clock'),
          })
          .nullable()
          .describe('set when state is lost'),
      })
      .loose(),
  ),
  pending: z.array(
    z.object({ item: z.string(), requester: z.string(), at: Instant, note: z.string().nullable(), coalesced: z.number().int() }),
  ),
  clockSkew: z.object({ writer: z.string(), minMs: Ms, maxMs: Ms, limitMs: Ms }).nullable(),
});

const gate = z.union([
  z.object({
    ...Ok,
    gate: z.string(),
    command: z.array(z.string()),
    exitCode: z.number().int(),
    signal: z.string().nullable(),
    ticket: z.number().int().nullable(),
    waitedMs: Ms,
    ranMs: Ms,
  }),
  z.object({
    ...Ok,
    gate: z.string(),
    slots: z.number().int(),
    holders: z.array(z.object({ pid: z.number().int(), ticket: z.number().int(), command: z.string(), since: Instant, forMs: Ms }).loose()),
    waiters: z.array(z.object({ pid: z.number().int(), ticket: z.number().int(), command: z.string(), waitedMs: Ms, until: Instant })),
  }),
]);

const announce = z.object({
  ...Ok,
  session: z.string(),
  ref: z.string(),
  state: z.enum(['working', 'blocked', 'done', 'away']),
  item: z.string().nullable(),
  text: z.string(),
  at: Instant,
  expiresAt: Instant,
  ttlMs: Ms,
});

const steer = z.object({
  ...Ok,
  item: z.string(),
  id: z.string(),
  ref: z.string(),
  tip: z.string(),
  author: z.string(),
  at: Instant,
  heldBy: z.string().nullable(),
  as: z.enum(['amendment', 'context']).nullable(),
});

const Tokens = z.number().int().nonnegative().describe('a number of model tokens');
const Usd = z.number().nonnegative().describe('dollars');
const SpendTotal = { debits: z.number().int().describe('cycles that debited something'), tokens: Tokens, usd: Usd };
const budget = z.object({
  ...Ok,
  dir: z.string(),
  pool: Tokens.nullable().describe('null: no token limit'),
  remaining: Tokens.nullable(),
  spent: Tokens,
  poolUsd: Usd.nullable().describe('null: no dollar limit'),
  remainingUsd: Usd.nullable(),
  spentUsd: Usd,
  debits: z.number().int(),
  setAt: Instant.nullable(),
  exhausted: z.boolean(),
  exhaustedBy: z.array(z.enum(['tokens', 'usd'])),
  changed: z.boolean(),
  lastDay: z.object({
    since: Instant,
    ...SpendTotal,
    byRuntime: z.array(z.object({ runtime: z.string(), ...SpendTotal })),
    byItem: z.array(z.object({ item: z.string(), ...SpendTotal })),
    ignoredLines: z.number().int().describe('lines of the spend log that could not be read'),
  }),
});

/** Each verb's success answer. Verbs the person runs by hand are described loosely. */
export const ANSWERS: Record<string, z.ZodType> = {
  reserve,
  renew,
  release,
  push,
  land,
  status,
  announce,
  gate,
  steer,
  build: z.object(Ok).loose(),
  drain: z.object(Ok).loose(),
  items: z.object(Ok).loose(),
  budget,
  settings: z
    .object({
      ...Ok,
      settings: z.record(z.string(), z.union([z.number(), z.array(z.string())])),
      protected: z.boolean(),
      signers: z.string(),
    })
    .loose(),
  init: z.object({ ...Ok, root: z.string(), written: z.array(z.string()), kept: z.array(z.string()), next: z.string().nullable() }).loose(),
  'check-login': z.object({ ...Ok, applies: z.boolean() }).loose(),
  'setup-app': z.object(Ok).loose(),
  credential: z.object(Ok),
  prime: z.object({ ...Ok, text: z.string() }),
  schema: z.object({ ...Ok }).loose(),
  completion: z.object({ ...Ok, shell: z.enum(['bash', 'zsh']), script: z.string() }),
};

/** A verb's answer as JSON Schema: its success shape or a refusal with one of the codes it can give. */
export function answerJsonSchema(verb: string, refusals: readonly RefusalCode[]): Record<string, unknown> {
  const ok = ANSWERS[verb];
  if (!ok) throw new Error(`no answer schema for ${verb}`);
  const either = z.union([ok, refusalAnswer(codesOf(refusals))]);
  return { title: `abcd ${verb} --json`, ...z.toJSONSchema(either, { io: 'output', unrepresentable: 'any' }) };
}
