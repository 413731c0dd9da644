/**
 * The parties: `api_user` (generators and centrals' API profiles) and
 * `central`, as read by plain statements.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiUser } from '../entities/index.js';
import { prepared, sql } from '../sql.js';

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
