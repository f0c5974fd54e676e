// `items.github` in `.abcd/config.json`: which GitHub issues are items. The GitHub provider owns
// its section's schema; repo/config.ts places it in the one schema of the file.
import { z } from 'zod';
import { lazySchema } from '../../core/lazy-schema.js';

// A label as GitHub allows it: up to 50 characters, no commas (the listing's filter joins them with one).
const Label = lazySchema(() =>
  z
    .string()
    .min(1)
    .max(50)
    .regex(/^[^,]+$/, 'a label name without commas'),
);

export const GitHubItemsSchema = lazySchema(() =>
  z.strictObject({
    /** owner/name of the repository whose issues are items; default the remote's, when it is on GitHub. */
    repo: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}$/, 'owner/name of a GitHub repository')
      .optional(),
    /** An open issue is ready when it carries every one of these labels (default ["abcd:ready"]). */
    labels: z.array(Label).min(1).max(10).optional(),
    /** An issue carrying any of these is no item. */
    exclude: z.array(Label).max(50).optional(),
    /** Labels in the order their issues are taken: the first label's issues first. */
    priority: z.array(Label).max(50).optional(),
  }),
);

export type GitHubItemsConfig = z.infer<typeof GitHubItemsSchema>;
