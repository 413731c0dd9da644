/**
 * The statements on `offer_transition`, the append-only audit trail of the
 * state machine (D1): one row per move. Only the moves write it
 * (src/domain/offers/lifecycle/moves.ts); the offers' statements that move
 * offers set-based (offers.ts) insert their audit rows with these fragments,
 * in the same statement as the move.
 */

/** An audit row as a set-based move writes it (timestamps as ISO text). */
export interface TransitionRecord {
  offer_uuid: string;
  from_state: string | null;
  to_state: string;
  actor: string;
  at: string;
  tech_lat: number | null;
  tech_lng: number | null;
  detail: Record<string, unknown> | null;
}

/** Inserts the audit rows given as a JSON array of TransitionRecord in parameter `$n`. */
export function insertTransitionRecords(n: number): string {
  return `insert into offer_transition (offer_uuid, from_state, to_state, actor, at, tech_lat, tech_lng, detail)
     select t.offer_uuid, t.from_state, t.to_state, t.actor, t.at, t.tech_lat, t.tech_lng, t.detail
       from jsonb_to_recordset($${n}::jsonb)
         as t(offer_uuid uuid, from_state text, to_state text, actor text, at timestamptz, tech_lat float8, tech_lng float8, detail jsonb)`;
}

/** The creations' audit rows: (none) → the state inserted, at its creation, from the CTE `inserted` joined to `records` by uuid. */
export function insertCreationTransitions(inserted: string, records: string): string {
  return `insert into offer_transition (offer_uuid, from_state, to_state, actor, at)
  select ${inserted}.uuid, null, ${inserted}.state, ${records}.actor, ${inserted}.created_at from ${inserted} join ${records} on ${records}.uuid = ${inserted}.uuid`;
}
