// Who acts in a record: the person, the host and the session.
import { z } from 'zod';
import { lazySchema } from '../core/lazy-schema.js';

/** Who acts: the person (git user.email), the host, the session. */
// No control characters: these strings reach people's terminals in messages and tables.
// eslint-disable-next-line no-control-regex -- control characters are what this refuses
const PRINTABLE = /^[^\u0000-\u001f\u007f]*$/;

export const HolderSchema = lazySchema(() =>
  z.object({
    person: z.string().min(1).max(254).regex(PRINTABLE),
    host: z.string().min(1).max(253).regex(PRINTABLE),
    session: z.string().min(1).max(100).regex(PRINTABLE),
  }),
);

export { PRINTABLE };
export type Holder = z.infer<typeof HolderSchema>;

export function formatHolder(h: Holder): string {
  return `${h.person}/${h.host}/${h.session}`;
}

export function sameSession(a: Holder, b: Holder): boolean {
  return a.person === b.person && a.host === b.host && a.session === b.session;
}
