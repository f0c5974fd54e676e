// The shape of `abcd status --json`: everyone's state in one answer (answers.ts holds the rest).
import { z } from 'zod';
import { Instant, Ms, Oid, State, Ok, Proven, SkippedEntry } from './answer-kinds.js';

const RefusedRecord = z.strictObject({
  ref: z.string(),
  code: z.string(),
  exit: z.number().int(),
  message: z.string(),
  data: z.record(z.string(), z.unknown()),
});

export const status = z.strictObject({
  ...Ok,
  remote: z.string(),
  readAt: Instant,
  session: z.string(),
  claims: z.array(
    z.strictObject({
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
      landed: z
        .strictObject({
          main: z.string(),
          tip: Oid,
          flaky: z
            .array(z.strictObject({ check: z.string(), attempts: z.number().int() }))
            .optional()
            .describe('checks that passed only on a retry'),
          batch: z
            .strictObject({ by: z.string(), size: z.number().int() })
            .optional()
            .describe("landed in a batch: the item of the batch's head, and how many landed with it"),
          run: z
            .string()
            .optional()
            .describe('the lane run whose absorbed requests abcd wrote as trailers into the landed tip (what proves its receipt)'),
        })
        .nullable(),
      review: z
        .strictObject({ run: z.string(), branch: z.string(), head: Oid, paths: z.array(z.string()) })
        .nullable()
        .describe('a released claim whose lane work changes protected paths and waits for the person: abcd review <item>'),
    }),
  ),
  queue: z.array(
    z.strictObject({
      position: z.number().int(),
      item: z.string(),
      holder: z.string(),
      branch: z.string(),
      head: Oid,
      main: z.string(),
      since: Instant,
      priority: z.enum(['high', 'normal', 'low']).describe('its place in the queue: high and low move it by land.priorityAge'),
      alive: z.boolean(),
      skipped: SkippedEntry.nullable().describe("set when the entry's claim cannot be read: lands skip it, never wait on it or delete it"),
      batch: z
        .strictObject({ of: z.string(), head: z.boolean() })
        .optional()
        .describe("with land.batch: the item of the batch's head that tests this entry, and whether it is the head"),
      refused: z
        .strictObject({ by: z.string(), reason: z.string() })
        .optional()
        .describe("a batch's head refused it, and why; its own land reports it and takes it out"),
    }),
  ),
  announcements: z.array(
    z.strictObject({
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
  gate: z.strictObject({ dir: z.string(), slots: z.number().int(), holders: z.number().int(), waiters: z.number().int() }),
  settings: z
    .object({
      reservationCap: z.number().int(),
      defaultTtl: Ms,
      takeoverDelay: Ms,
      doneRetention: Ms,
      requesters: z.array(z.string()),
      protectedPaths: z.array(z.string()),
    })
    .loose(),
  settingsTrust: z.strictObject({ protected: z.boolean(), signers: z.string() }).loose(),
  requestTrust: z
    .strictObject({ protected: z.boolean(), signers: z.string() })
    .describe('whether steer and build requests are proven by signature (the person keeps an allowed-signers list)'),
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
  failures: z
    .array(
      z.strictObject({
        item: z.string(),
        runId: z.string(),
        holder: z.string(),
        at: Instant.describe('when it happened: the cycle ended, the lost run last wrote, the budget stopped the run'),
        kind: z.enum(['agent-exit', 'timeout', 'check', 'conflict', 'no-change', 'stopped', 'budget', 'lost', 'other']),
        what: z.string().describe("one line: what failed, with the agent's or the check's last meaningful line"),
        exitCode: z.number().int().nullable().describe("the agent's exit code (agent-exit)"),
        lastLine: z.string().nullable(),
        check: z.strictObject({ name: z.string(), exitCode: z.number().int() }).nullable(),
        conflictFiles: z.array(z.string()).nullable(),
        branch: z.string().nullable().describe("the remote branch that keeps the cycle's work"),
        next: z.array(z.string()).describe('commands to run next, most useful first'),
      }),
    )
    .describe('what failed or got stuck in the last day and still waits for a person, one per item, newest first'),
  running: z
    .array(
      z.strictObject({
        item: z.string(),
        runId: z.string(),
        holder: z.string(),
        holderShort: z.string().describe("the holder's name cut to what tells it from the other running lanes' holders"),
        phase: z.string().nullable(),
        forMs: z.number().int(),
        phaseForMs: z.number().int().nullable(),
        tokens: z.number(),
        costUsd: z.number(),
      }),
    )
    .describe('the lanes at work now, one per item'),
  pending: z.array(
    z.strictObject({
      item: z.string(),
      requester: z.string(),
      provenBy: Proven,
      at: Instant,
      note: z.string().nullable(),
      coalesced: z.number().int(),
    }),
  ),
  steers: z
    .array(
      z.strictObject({
        item: z.string(),
        id: z.string(),
        author: z.string(),
        provenBy: Proven,
        at: Instant,
        text: z.string().describe('the first line of its text, cut short'),
        heldBy: z.string().nullable().describe('the session whose lane gets it on its next poll'),
      }),
    )
    .describe('steer requests not yet delivered by a cycle that landed'),
  receipts: z
    .array(
      z.strictObject({
        item: z.string(),
        runId: z.string(),
        holder: z.string(),
        at: Instant,
        head: Oid,
        consumed: z.array(z.string()).describe('what the run absorbed: "steer <id>", "pending <tip>", "item <blob>"'),
      }),
    )
    .describe("each item's latest receipt: which run absorbed which requests"),
  clockSkew: z.strictObject({ writer: z.string(), minMs: Ms, maxMs: Ms, limitMs: Ms }).nullable(),
});
