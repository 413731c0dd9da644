/**
 * Reads of the parties of a request (`api_user`: generators and centrals'
 * API profiles; `central`, and the technician of a central): who answers,
 * for whom.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Central, Offer, Technician, type ApiUser } from '../entities/index.js';
import { prepared, sql } from '../sql.js';

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

// --- stores ---

/** A covering central and the API user its pushes go to, if any. */
export interface CentralReceiver {
  id: number;
  receiverId: number | null;
  urlApi: ApiUser['urlApi'];
  apiEndpoint: ApiUser['apiEndpoint'];
}

const CENTRAL_RECEIVERS = prepared(`select c.id, u.id as "receiverId", u.url_api as "urlApi", u.api_endpoint as "apiEndpoint"
       from central c left join api_user u on u.id = c.api_user_id
      where c.id = any($1::int[])`);

/** Centrals and the API profile each one's pushes go to (a distribution batch's centrals, one statement). */
export async function centralReceivers(em: EntityManager, centralIds: readonly number[]): Promise<CentralReceiver[]> {
  return sql<CentralReceiver>(em, CENTRAL_RECEIVERS, [centralIds]);
}

/** An API user's business name and username (null: no such user). */
export async function apiUserNames(em: EntityManager, apiUserId: number): Promise<{ business_name: string | null; username: string } | null> {
  const [row] = await em.execute<Array<{ business_name: string | null; username: string }>>(`select business_name, username from api_user where id = ?`, [apiUserId]);
  return row ?? null;
}
