/**
 * The `offer_response` table: the technicians' responses to an offer, with
 * their figures (D2).
 */
import type { EntityManager } from '@mikro-orm/postgresql';

// --- stores ---

/** A response as an offer's timeline ranks it. */
export interface RankedResponseRow {
  id: number;
  central: string;
  technician: string;
  time_min: number;
  time_given: boolean;
  rate: number;
  distance_km: number;
  updated_at: Date;
}

/** An offer's responses with their central's and technician's names (the operators' timeline). */
export async function responsesForTimeline(em: EntityManager, offerUuid: string): Promise<RankedResponseRow[]> {
  return em.execute<RankedResponseRow[]>(
    `select r.id, c.name as central, t.names as technician, r.time_min, r.time_given, r.rate, r.distance_km, r.updated_at
       from offer_response r join central c on c.id = r.central_id join technician t on t.id = r.technician_id
      where r.offer_uuid = ?`,
    [offerUuid],
  );
}

/** A response's arrival time in minutes (null: no such response). */
export async function responseTimeMin(em: EntityManager, responseId: number): Promise<number | null> {
  const [r] = await em.execute<Array<{ time_min: number }>>(`select time_min from offer_response where id = ?`, [responseId]);
  return r ? r.time_min : null;
}
