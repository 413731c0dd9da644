/**
 * Reads of the parties of a request (`api_user`, `central`, and the
 * technician of a central): who answers, for whom.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Central, Offer, Technician } from '../entities/index.js';

/**
 * PUT /aceptacion's transactional path (D4.2–5): the caller's central by its tax id, the offer with its generator,
 * and that central's technician; each null when missing.
 */
export async function acceptanceParties(
  em: EntityManager,
  q: { nit: string; callerId: number; offerUuid: string; dni: string },
): Promise<{ central: Central | null; offer: Offer | null; technician: Technician | null }> {
  const central = await em.findOne(Central, { nit: q.nit, apiUser: q.callerId });
  const offer = await em.findOne(Offer, { uuid: q.offerUuid }, { populate: ['generator'] });
  const technician = central ? await em.findOne(Technician, { dni: q.dni, central: central.id }) : null;
  return { central, offer, technician };
}
