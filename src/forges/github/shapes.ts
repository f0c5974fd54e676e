// The few fields abcd reads from GitHub's answers, checked: an answer without them is garbage
// (exit 8), never a half-read object that a later step trusts.
import { z } from 'zod';
import { garbage } from './http-refusals.js';
import { lazySchema } from '../../core/lazy-schema.js';

const OID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

export const RestPullSchema = lazySchema(() =>
  z.object({
    number: z.number().int().positive(),
    node_id: z.string().min(1),
    title: z.string(),
    body: z.string().nullable().optional(),
    html_url: z.string().optional(),
    head: z.object({ ref: z.string(), sha: z.string().regex(OID) }),
    base: z.object({ ref: z.string() }),
  }),
);
export type RestPull = z.infer<typeof RestPullSchema>;

export const RestMergeSchema = lazySchema(() =>
  z.object({
    merged: z.boolean(),
    sha: z.string().regex(OID).nullable().optional(),
    message: z.string().optional(),
  }),
);

export const GraphqlPullSchema = lazySchema(() =>
  z.object({
    id: z.string().min(1),
    number: z.number().int().positive(),
    state: z.enum(['OPEN', 'CLOSED', 'MERGED']),
    merged: z.boolean(),
    headRefOid: z.string().regex(OID),
    baseRefName: z.string(),
    mergeable: z.string(),
    mergeStateStatus: z.string().nullable().optional(),
    isMergeQueueEnabled: z.boolean(),
    isInMergeQueue: z.boolean(),
    mergeQueueEntry: z.object({ state: z.string() }).nullable().optional(),
    mergeCommit: z
      .object({ oid: z.string().regex(OID) })
      .nullable()
      .optional(),
    url: z.string().optional(),
  }),
);

export const PullStateAnswerSchema = lazySchema(() =>
  z.object({
    repository: z.object({ pullRequest: GraphqlPullSchema.nullable() }).nullable(),
  }),
);

export const EnqueueAnswerSchema = lazySchema(() =>
  z.object({
    enqueuePullRequest: z
      .object({
        mergeQueueEntry: z.object({ id: z.string(), state: z.string(), position: z.number().int().nullable().optional() }).nullable(),
      })
      .nullable(),
  }),
);

/** Parses an answer, or throws garbage naming the call and what was missing. */
export function parseAnswer<S extends z.ZodType>(schema: S, data: unknown, call: { call: string; write: boolean }): z.infer<S> {
  const r = schema.safeParse(data);
  if (r.success) return r.data;
  const where = r.error.issues[0]?.path.join('.') || 'the expected fields';
  throw garbage(call, `a valid ${where}`);
}
