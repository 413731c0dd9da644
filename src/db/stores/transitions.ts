/**
 * The `offer_transition` table: an offer's moves, one row each (the audit).
 */
import type { EntityManager } from '@mikro-orm/postgresql';

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
