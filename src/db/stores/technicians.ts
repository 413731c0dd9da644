/**
 * Statements on `technician`.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../sql.js';

// --- moves ---

/** D16: the technician is busy with this service from ASIGNADA on. */
export async function holdTechnicianForOffer(em: EntityManager, offerUuid: string, technicianId: number): Promise<void> {
  await em.execute(`update technician set busy_offer_uuid = ? where id = ?`, [offerUuid, technicianId]);
}

/** D16: the service ended; its technician is free again, unless a newer assignment holds it. */
export async function releaseTechnicianOfOffer(em: EntityManager, offerUuid: string): Promise<void> {
  await em.execute(`update technician set busy_offer_uuid = null where busy_offer_uuid = ?`, [offerUuid]);
}

/** D16, set-based: each offer's technician busy with it (one statement for a batch). */
export async function holdTechniciansForOffers(em: EntityManager, holds: ReadonlyArray<{ offerUuid: string; technicianId: number }>): Promise<void> {
  if (holds.length === 1) return holdTechnicianForOffer(em, holds[0].offerUuid, holds[0].technicianId);
  await sql(
    em,
    `update technician t set busy_offer_uuid = h.offer_uuid
       from jsonb_to_recordset($1::jsonb) as h(offer_uuid uuid, technician_id int) where t.id = h.technician_id`,
    [JSON.stringify(holds.map((h) => ({ offer_uuid: h.offerUuid, technician_id: h.technicianId })))],
  );
}

/** D16, set-based: the technicians of these ended services freed (one statement for a batch). */
export async function releaseTechniciansOfOffers(em: EntityManager, offerUuids: readonly string[]): Promise<void> {
  if (offerUuids.length === 1) return releaseTechnicianOfOffer(em, offerUuids[0]);
  await sql(em, `update technician set busy_offer_uuid = null where busy_offer_uuid = any($1::uuid[])`, [offerUuids]);
}
