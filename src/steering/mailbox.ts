// What abcd appends to ABCD_MAILBOX. One fixed, versioned first word per message so an agent
// can tell abcd's lines from anything else; the text itself is sanitized hostile text.
import { formatHolder } from '../records/holder.js';
import { formatInstant } from '../core/duration.js';
import { sanitizeLine } from '../core/sanitize.js';
import type { PendingEntry } from '../repo/snapshot.js';

export function mailboxLine(p: PendingEntry): string {
  const r = p.request;
  const note = r.note ? sanitizeLine(r.note) : '(no note)';
  return (
    `abcd-mailbox v1 follow-up requested by ${sanitizeLine(formatHolder(r.requester))} at ${formatInstant(r.at)} ` +
    `(${r.coalesced} request(s) coalesced): ${note}\n`
  );
}
