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
    z.strictObject({
      code: z.literal(code).describe(`${REFUSALS[code].means}: ${REFUSALS[code].todo}`),
      exit: z.number().int(),
      message: z.string(),
      data: z.record(z.string(), z.unknown()),
    }),
  );
  if (!first) throw new Error('a refusal answer needs at least one code');
  return z.strictObject({ ok: z.literal(false), refusal: z.discriminatedUnion('code', [first, ...rest]) });
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

const reserve = z.strictObject({
  ...ClaimAnswer,
  state: z.literal('held'),
  holder: z.string(),
  renewed: z.boolean(),
  reopened: z.boolean().describe('the item had landed and --reopen reserved it again'),
  tookOverFrom: z.string().nullable(),
  waitedMs: Ms.describe('0 when nothing was waited on'),
});

const renew = z.strictObject({ ...ClaimAnswer, written: z.boolean() });
const release = z.union([
  z.strictObject({
    ...ClaimAnswer,
    written: z.boolean().describe('false when there was nothing to write: the item had landed, or this session released it already'),
    already: z.boolean().describe('this session had released it already'),
  }),
  z
    .object({ ...Ok, item: z.string(), claimTip: Oid.nullable(), cleared: z.boolean() })
    .loose()
    .describe('release --force'),
]);

const push = z.strictObject({
  ...Ok,
  item: z.string(),
  branch: z.string(),
  head: Oid,
  tags: z.array(z.string()),
  claimTip: Oid,
  gen: z.number().int(),
  expiresAt: Instant,
});

const SkippedEntry = z.strictObject({ item: z.string(), ref: z.string(), claimRef: z.string(), code: z.string(), message: z.string() });

const land = z.strictObject({
  ...Ok,
  item: z.string(),
  main: z.string(),
  tip: Oid.describe("main's tip after landing"),
  previousTip: Oid.nullable().describe("main's tip the landing was tested on (git forge)"),
  github: z.strictObject({ number: z.number().int(), url: z.string().nullable(), via: z.string(), fenceWindowMs: Ms }).nullable(),
  head: Oid,
  branch: z.string(),
  attempts: z.number().int(),
  checks: z.array(
    z.strictObject({
      command: z.string(),
      exitCode: z.number().int(),
      durationMs: Ms,
      attempt: z.number().int().describe('which run of this check on this tree (above 1 with land.retries)'),
    }),
  ),
  flaky: z
    .array(z.strictObject({ check: z.string(), attempts: z.number().int() }))
    .optional()
    .describe('checks that failed and then passed when run again (land.retries)'),
  checksSandbox: z.enum(['bwrap', 'none']).optional().describe('where the checks ran: bubblewrap, or unsandboxed as the person'),
  warning: z.string().optional().describe('said when the checks ran unsandboxed: land.sandbox "none", or for want of a sandbox'),
  network: z
    .strictObject({
      allowed: z.number().int(),
      refused: z.number().int(),
      hosts: z.array(z.string()).describe('the distinct host:port the checks asked for, first seen first (at most 16)'),
    })
    .optional()
    .describe("sandboxed checks: the connections they asked abcd's egress proxy for (land.network.allow)"),
  hostAccess: z
    .array(z.enum(['network', 'files']))
    .optional()
    .describe("unsandboxed checks: they ran with this computer's network and files"),
  enqueuedAt: Instant,
  waitedMs: Ms,
  state: State,
  skipped: z.array(SkippedEntry).optional().describe('queue entries ahead whose claim this abcd could not read: skipped, not waited on'),
  speculation: z
    .strictObject({ depth: z.number().int(), position: z.number().int(), retests: z.number().int() })
    .optional()
    .describe('with land.speculate above 1: how deep this entry was tested and the tests thrown away'),
  batch: z
    .strictObject({
      by: z.string().describe("the item whose land tested and landed the batch (this one's, for its head)"),
      size: z.number().int().describe('how many entries landed with it'),
      rounds: z.number().int().optional().describe('the head only: check rounds it took, bisection included'),
      refused: z.array(z.string()).optional().describe('the head only: members refused for failing'),
      landedAs: z
        .enum(['merge', 'squash'])
        .optional()
        .describe("how its piece came onto main: behind a merge commit whose tree was tested, or as the item's one squash commit"),
    })
    .optional()
    .describe('with land.batch above 1: the batch this entry landed in'),
  approved: z
    .strictObject({ run: z.string(), head: Oid, paths: z.array(z.string()), generation: Oid })
    .optional()
    .describe(
      "--approve: the lane run whose kept work landed, its protected paths, and the person's signed settings generation approving it",
    ),
});

const review = z.strictObject({
  ...Ok,
  reviews: z.array(
    z.strictObject({
      item: z.string(),
      run: z.string().describe('the lane run whose work waits; abcd land <item> --approve <run> lands it'),
      branch: z.string().describe('the kept branch on the remote'),
      head: Oid,
      base: Oid.describe("main's tip the work was taken on"),
      paths: z.array(z.string()).describe('the protected paths the work changes'),
      moved: z.boolean().describe('the branch no longer holds head: approving is refused'),
      diff: z.strictObject({ protected: z.string(), rest: z.string(), truncated: z.boolean() }),
      approve: z.string(),
    }),
  ),
});

const Proven = z.string().describe('the principal the signature proves, or "unverified": the name beside it is only stated');

const RefusedRecord = z.strictObject({
  ref: z.string(),
  code: z.string(),
  exit: z.number().int(),
  message: z.string(),
  data: z.record(z.string(), z.unknown()),
});

const status = z.strictObject({
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

const gate = z.union([
  z.strictObject({
    ...Ok,
    gate: z.string(),
    command: z.array(z.string()),
    exitCode: z.number().int(),
    signal: z.string().nullable(),
    ticket: z.number().int().nullable(),
    waitedMs: Ms,
    ranMs: Ms,
  }),
  z.strictObject({
    ...Ok,
    gate: z.string(),
    slots: z.number().int(),
    holders: z.array(
      z.strictObject({ pid: z.number().int(), ticket: z.number().int(), command: z.string(), since: Instant, forMs: Ms }).loose(),
    ),
    waiters: z.array(
      z.strictObject({ pid: z.number().int(), ticket: z.number().int(), command: z.string(), waitedMs: Ms, until: Instant }),
    ),
  }),
]);

const announce = z.strictObject({
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

const steer = z.strictObject({
  ...Ok,
  item: z.string(),
  id: z.string(),
  ref: z.string(),
  tip: z.string(),
  author: z.string(),
  at: Instant,
  heldBy: z.string().nullable(),
  laneHolds: z.boolean().describe('the holder is a lane running on the item: it gets the request on its next poll'),
  done: z.boolean().describe('the item is done and not reopened: the request waits until someone reopens it'),
  as: z.enum(['amendment', 'context']).nullable(),
  signed: z.boolean().describe('the request commit is signed'),
  provenBy: z.string().nullable().describe("the principal the person's allowed-signers list proves signed it (null: unverified)"),
  protected: z.boolean().describe("this clone keeps the person's allowed-signers list (without one, requests are unprotected)"),
});

const itemList = z.strictObject({
  ...Ok,
  main: z.string(),
  mainTip: Oid,
  items: z.array(
    z.strictObject({
      key: z.string(),
      slug: z.string(),
      title: z.string(),
      status: z.enum(['ready', 'done']).describe("the item file's front matter"),
      dependsOn: z.array(z.string()),
      readiness: z.enum(['ready', 'blocked', 'held', 'done', 'pending', 'needs-review']),
      blockedBy: z.array(z.string()).describe('dependencies not yet done (readiness blocked)'),
      claim: z
        .strictObject({ state: State, holder: z.string(), expiresAt: Instant, live: z.boolean() })
        .nullable()
        .describe("the item's claim record as it stands, whatever its state"),
      path: z.string().describe("the item file's path, or the issue's web address"),
      addedAt: Instant.nullable().describe('when the item entered main or the issue was opened, null when its source does not say'),
      labels: z.array(z.string()).optional().describe("an issue's labels (GitHub source)"),
      review: z
        .strictObject({ run: z.string(), branch: z.string(), head: Oid, paths: z.array(z.string()) })
        .optional()
        .describe('readiness needs-review: the lane run whose work changes protected paths and waits on its branch for the person'),
    }),
  ),
  refused: z.array(
    z.strictObject({ path: z.string(), key: z.string().nullable(), code: z.string(), reason: z.string().nullable(), message: z.string() }),
  ),
});

/** `abcd items add` and `abcd items close`: what changed, and the landing (or the issue) that did it. */
const itemChange = z
  .strictObject({
    ...Ok,
    action: z.enum(['add', 'close']),
    item: z.string(),
    changed: z.boolean().describe('false: nothing to do (closing an item already done)'),
  })
  .loose();

const items = z.union([itemList, itemChange]);

const Tokens = z.number().int().nonnegative().describe('a number of model tokens');
const Usd = z.number().nonnegative().describe('dollars');
const SpendTotal = { debits: z.number().int().describe('cycles that debited something'), tokens: Tokens, usd: Usd };
const budget = z.strictObject({
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
  lastDay: z.strictObject({
    since: Instant,
    ...SpendTotal,
    byRuntime: z.array(z.strictObject({ runtime: z.string(), ...SpendTotal })),
    byItem: z.array(z.strictObject({ item: z.string(), ...SpendTotal })),
    ignoredLines: z.number().int().describe('lines of the spend log that could not be read'),
  }),
});

const SpendRow = z.strictObject({ name: z.string(), tokens: Tokens, usd: Usd, cycles: z.number().int() });
const teamBudget = z.strictObject({
  ...Ok,
  team: z.literal(true),
  limit: z
    .strictObject({
      tokens: Tokens.nullable(),
      usd: Usd.nullable(),
      at: Instant,
      by: z.string(),
      generation: z.string().describe('the signed limit commit in force'),
    })
    .nullable()
    .describe('null: no team pool (none set, or none validly signed)'),
  protected: z.boolean().describe('false: no allowed-signers list here, so the limit is not checked against your keys'),
  signers: z.string(),
  ignored: z.strictObject({ tip: z.string(), why: z.enum(['unsigned', 'untrusted', 'foreign']) }).optional(),
  spent: Tokens,
  spentUsd: Usd,
  reserved: z.strictObject({ tokens: Tokens, usd: Usd }).describe('what cycles in flight on any computer hold'),
  remaining: Tokens.nullable(),
  remainingUsd: Usd.nullable(),
  exhausted: z.boolean(),
  exhaustedBy: z.array(z.enum(['tokens', 'usd'])),
  settled: z.number().int().describe('reservations settled with what their cycle used'),
  expired: z.number().int().describe('reservations settled at the amount reserved: their lanes never settled them'),
  settledNow: z.number().int(),
  open: z.array(
    z.strictObject({
      id: z.string(),
      holder: z.string(),
      machine: z.string(),
      runtime: z.string(),
      item: z.string(),
      tokens: Tokens,
      usd: Usd,
      at: Instant,
      expiresAt: Instant,
    }),
  ),
  byMachine: z.array(SpendRow),
  byRuntime: z.array(SpendRow),
  byItem: z.array(SpendRow),
  changed: z.boolean(),
});

const logs = z.strictObject({
  ...Ok,
  runId: z.string(),
  state: z
    .enum(['running', 'finished', 'lost'])
    .nullable()
    .describe("lost: the run's process is gone without saying it finished; null: the run wrote no state"),
  end: z.string().nullable().describe('how the run ended: ok, or the refusal code that stopped it'),
  cycles: z.array(
    z.strictObject({
      cycle: z.number().int(),
      item: z.string().describe("the item's short name as the log file names it"),
      file: z.string(),
      text: z.string().describe("the agent's output, then each check's, scrubbed of anything shaped like a token"),
      transcript: z.string().describe('the same as a person reads it: prompts, tool calls, text, steers, checks and the result'),
    }),
  ),
});

/** Each verb's success answer. Verbs the person runs by hand are described loosely. */
export const ANSWERS: Record<string, z.ZodType> = {
  reserve,
  renew,
  release,
  push,
  land,
  review,
  status,
  announce,
  gate,
  steer,
  logs,
  serve: z.strictObject({
    ...Ok,
    url: z.string().describe("the page's address, with its token: printed first, before the page is served"),
    port: z.number().int(),
  }),
  build: z.strictObject(Ok).loose(),
  drain: z.strictObject(Ok).loose(),
  items,
  budget: z.union([budget, teamBudget]),
  settings: z
    .object({
      ...Ok,
      settings: z.record(z.string(), z.union([z.number(), z.array(z.string())])),
      protected: z.boolean(),
      signers: z.string(),
    })
    .loose(),
  init: z
    .strictObject({
      ...Ok,
      root: z.string(),
      written: z.array(z.string()),
      kept: z.array(z.string()),
      next: z.string().nullable(),
      registries: z
        .strictObject({ files: z.array(z.string()), allow: z.array(z.string()) })
        .describe('the lock files found and the registries they name, which a sandboxed check reaches only through land.network.allow'),
      steps: z
        .array(z.string())
        .describe('what the person does next: commit and push, the secrets and variables to add, how to start a lane'),
    })
    .loose(),
  'check-login': z.strictObject({ ...Ok, applies: z.boolean() }).loose(),
  'setup-app': z.strictObject(Ok).loose(),
  credential: z.strictObject(Ok),
  prime: z.strictObject({ ...Ok, text: z.string() }),
  schema: z.strictObject({ ...Ok }).loose(),
  completion: z.union([
    z.strictObject({ ...Ok, shell: z.enum(['bash', 'zsh']), script: z.string() }),
    z.strictObject({ ...Ok, items: z.array(z.string()).describe('--items: the item slugs this clone knows, from its cache') }),
  ]),
};

/** A verb's answer as JSON Schema: its success shape or a refusal with one of the codes it can give. */
export function answerJsonSchema(verb: string, refusals: readonly RefusalCode[]): Record<string, unknown> {
  const ok = ANSWERS[verb];
  if (!ok) throw new Error(`no answer schema for ${verb}`);
  const either = z.union([ok, refusalAnswer(codesOf(refusals))]);
  return { title: `abcd ${verb} --json`, ...z.toJSONSchema(either, { io: 'output', unrepresentable: 'any' }) };
}
