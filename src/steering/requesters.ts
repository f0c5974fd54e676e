// Who may ask a lane for a follow-up (the pending slot): the person the lane acts for, under
// any session, or a person or session that `lanes.requesters` on main names. Anyone else's
// request creates nothing; a slot written around abcd by anyone else is not work.
import { formatHolder, type Holder } from '../records/holder.js';

export function acceptsRequest(requester: Holder, lane: Holder, requesters: readonly string[]): boolean {
  if (requester.person === lane.person) return true;
  const full = formatHolder(requester);
  return requesters.some((r) => r === requester.person || r === full || r === requester.session);
}
