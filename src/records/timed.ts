// Records that live for a ttl from their writer's clock: claims, announcements, lane runs,
// steer and pending requests. Their expiry is written one way, here.

/** A record stamped with its writer's clock (`at`) and a time to live. */
export interface Timed {
  readonly at: number;
  readonly ttl: number;
}

/** When the record expires, on its writer's clock. */
export function expiresAt(r: Timed): number {
  return r.at + r.ttl;
}

/** Whether `now` (a reader's clock) is `graceMs` or more past the record's expiry. */
export function isPastExpiry(r: Timed, now: number, graceMs = 0): boolean {
  return now >= expiresAt(r) + graceMs;
}
