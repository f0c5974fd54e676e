// The shape of every verb's --json answer, one zod schema each: `abcd schema [verb]` publishes
// them as JSON Schema and test/json-schema.test.ts checks every verb's real answer against
// them. The vocabulary (ADR 0030): the same name for the same thing in every verb; durations
// in integer ms named *Ms; instants as ISO 8601 UTC with milliseconds; optional keys present
// as null; `claimTip` is a claim generation's commit, `tip` a commit the verb put on main.
// Loaded only by `abcd schema` and tests: zod stays off the path of `abcd --help`.
import { z } from 'zod';
import { REFUSALS, type RefusalCode } from '../core/refusal-table.js';
import { codesOf } from './refusal-codes.js';
import { Instant, Ms, Oid, State, Ok, SkippedEntry } from './answer-kinds.js';
import { status } from './answer-status.js';
import { budget, teamBudget } from './answer-budget.js';

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
