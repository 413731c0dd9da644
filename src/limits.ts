/**
 * Issue 8.10: identities are bounded where they enter (provisioning's schema, Basic, API keys,
 * logins, the socket upgrade), so that everything built from them fits its column, above all the
 * audit trail's `actor` (varchar 255: `api-user:<username>`, `central:<nit>`, `operator:<username>`).
 * config/provision.schema.json states the same numbers (a test keeps them equal).
 */
export const IDENTITY_LIMITS = {
  /** API users' and operators' usernames */
  username: 128,
  /** passwords as typed (they are hashed, never stored as such) */
  password: 1024,
  apiKey: 128,
  /** centrals' tax ids */
  nit: 64,
  /** technicians' documents */
  dni: 64,
} as const;

/** The audit trail's `actor` column (offer_transition.actor, varchar 255). */
export const ACTOR_MAX_LENGTH = 255;

/** `actor` cut to its column, whatever it was built from: an audit row never fails a transition. */
export function auditActor(actor: string): string {
  return actor.length <= ACTOR_MAX_LENGTH ? actor : `${actor.slice(0, ACTOR_MAX_LENGTH - 1)}…`;
}

/**
 * Issue 29.9 (decisions LIM-6): how deep a paged list may be read with OFFSET. A page whose last
 * row lies beyond this many rows is refused (400, `list.too-deep`) before any query runs, so
 * `page=999999` costs nothing; narrow the list with its filters (dates, state) instead.
 */
export const MAX_LIST_DEPTH = 10_000;

/** The rows to skip for `page` of `pageSize`, or null when the page lies beyond MAX_LIST_DEPTH. */
export function pageOffset(page: number, pageSize: number): number | null {
  return page * pageSize > MAX_LIST_DEPTH ? null : (page - 1) * pageSize;
}
