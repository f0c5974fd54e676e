import { z } from 'zod';

/** Who acts: the person (git user.email), the host, the session. */
export const HolderSchema = z.object({
  person: z.string().min(1).max(254),
  host: z.string().min(1).max(253),
  session: z.string().min(1).max(100),
});
export type Holder = z.infer<typeof HolderSchema>;

export function formatHolder(h: Holder): string {
  return `${h.person}/${h.host}/${h.session}`;
}

export function sameSession(a: Holder, b: Holder): boolean {
  return a.person === b.person && a.host === b.host && a.session === b.session;
}
