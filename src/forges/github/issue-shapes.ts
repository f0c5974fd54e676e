// The fields abcd reads from GitHub's issue and comment answers, checked: an answer without
// them is garbage (exit 8). Everything else GitHub sends is dropped on reading.
import { z } from 'zod';
import { lazySchema } from '../../core/lazy-schema.js';

const UserSchema = lazySchema(() => z.object({ login: z.string().min(1), type: z.string().optional() }).nullable());

/** A label as the REST API sends it: an object, or a bare name in some older answers. */
const LabelSchema = lazySchema(() =>
  z.union([z.string(), z.object({ name: z.string() })]).transform((l) => (typeof l === 'string' ? l : l.name)),
);

export const RestIssueSchema = lazySchema(() =>
  z.object({
    number: z.number().int().positive(),
    title: z.string(),
    body: z.string().nullable().optional(),
    state: z.enum(['open', 'closed']),
    labels: z.array(LabelSchema).optional().default([]),
    html_url: z.string().optional(),
    created_at: z.string().optional(),
    user: UserSchema.optional(),
    /** Present on the pull requests the issues endpoints list beside issues. */
    pull_request: z.unknown().optional(),
    /** GitHub's own dependencies, where the API offers them: how many open issues block this one. */
    issue_dependencies_summary: z.object({ blocked_by: z.number().int().nonnegative() }).nullable().optional(),
    /** Sub-issues, where the API offers them: a parent with open ones waits on them. */
    sub_issues_summary: z
      .object({ total: z.number().int().nonnegative(), completed: z.number().int().nonnegative() })
      .nullable()
      .optional(),
    /** The repository an issue of a listing across repositories belongs to (blocked_by may name others). */
    repository_url: z.string().optional(),
  }),
);
export type RestIssue = z.infer<typeof RestIssueSchema>;

export const RestIssueListSchema = lazySchema(() => z.array(RestIssueSchema));

export const RestCommentSchema = lazySchema(() =>
  z.object({
    id: z.number().int().positive(),
    body: z.string().nullable().optional(),
    user: UserSchema.optional(),
    /** OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, ...: what GitHub says the author is to the repository. */
    author_association: z.string().optional().default('NONE'),
    created_at: z.string(),
    updated_at: z.string().optional(),
    html_url: z.string().optional(),
  }),
);
export type RestComment = z.infer<typeof RestCommentSchema>;

export const RestCommentListSchema = lazySchema(() => z.array(RestCommentSchema));
