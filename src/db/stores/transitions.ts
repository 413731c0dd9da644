/**
 * The statements on `offer_transition`, the append-only audit trail of the
 * state machine (D1): one row per move. Only the moves write it
 * (src/domain/offers/lifecycle/moves.ts); the offers' statements that move
 * offers set-based (offers.ts) insert their audit rows with these fragments,
 * in the same statement as the move. The timelines read it here too.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

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

// --- stores ---

/** A move of an offer as its timelines read it. */
export interface TransitionRow {
  from_state: string | null;
  to_state: string;
  actor: string;
  at: Date;
  tech_lat: number | null;
  tech_lng: number | null;
}

/** An offer's moves, in the order they were made (the operators' and the customer's timelines). */
export async function offerTransitions(em: EntityManager, offerUuid: string): Promise<TransitionRow[]> {
  return em.execute<TransitionRow[]>(
    `select from_state, to_state, actor, at, tech_lat, tech_lng from offer_transition where offer_uuid = ? order by id`,
    [offerUuid],
  );
}

/** When the offer last moved into one of `states` (null: never). */
export async function lastMoveInto(em: EntityManager, offerUuid: string, states: readonly string[]): Promise<Date | null> {
  const [row] = await em.execute<Array<{ at: Date }>>(
    `select max(at) as at from offer_transition where offer_uuid = ? and to_state in (${states.map(() => '?').join(', ')})`,
    [offerUuid, ...states],
  );
  return row?.at ? new Date(row.at) : null;
}
