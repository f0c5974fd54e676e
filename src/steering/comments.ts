// Comments on an issue a lane holds, as steer requests. The author is who the forge says wrote
// it, never what the text claims: an author GitHub reports as the repository's owner, a member
// or a collaborator gives an amendment; anyone else gives context the agent must not obey;
// a bot (abcd's own App included, whose result comments land on the same issue) never steers.
import { formatInstant } from '../core/duration.js';
import { AUTHORISED_ASSOCIATIONS } from '../items/agent-text.js';
import type { ItemComment } from '../items/source.js';
import type { SteerCandidate } from './requests.js';

/** The comments as candidates, oldest first; bots' left out. */
export function commentCandidates(
  comments: readonly ItemComment[],
  amending: ReadonlySet<string> = AUTHORISED_ASSOCIATIONS,
): SteerCandidate[] {
  return comments
    .filter((c) => !c.bot)
    .map((c) => ({
      req: { kind: 'comment' as const, id: String(c.id) },
      at: c.at,
      authority: amending.has(c.association) ? ('amendment' as const) : ('context' as const),
      source: `issue comment ${c.id} by @${c.author} (${c.association}, as GitHub reports) at ${formatInstant(c.at)}`,
      text: c.body,
    }))
    .sort((x, y) => x.at - y.at || Number(x.req.id) - Number(y.req.id));
}
