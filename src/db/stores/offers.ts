/**
 * The `offer` table: its statements. One statement that also writes it lives
 * with the other table it writes: the distribution's mark (`distributed_at`)
 * in recordRecipients (./recipients.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DeliveryKind, Offer } from '../entities/index.js';
import { prepared, readDate, sql } from '../sql.js';
import { AGO, after, pageParams, type KeysetCursor, type KeysetRow } from './keyset.js';
import { RECIPIENT_COUNTS } from './recipients.js';

// --- stores ---

/** An offer's state and its unsent deliveries of one kind. */
const STATE_AND_UNFINISHED = prepared(`select o.state,
            array(select d.id::text from webhook_delivery d where d.offer_uuid = o.uuid and d.kind = $1 and d.state in ('pending', 'sending')) as unfinished
       from offer o where o.uuid = $2`);

/**
 * An offer's state and the ids of its deliveries of `kind` still to send or
 * being sent, in one read (one snapshot: deliveries written with the state
 * are seen with it). Null when there is no such offer.
 */
export async function offerStateAndUnfinished(
  em: EntityManager,
  offerUuid: string,
  kind: DeliveryKind,
): Promise<{ state: string; unfinished: string[] } | null> {
  const [row] = await sql<{ state: string; unfinished: string[] }>(
    em,
    STATE_AND_UNFINISHED,
    [kind, offerUuid],
  );
  return row ?? null;
}

/** An offer's state and service code (null: no such offer). */
export async function offerStateAndCode(em: EntityManager, offerUuid: string): Promise<{ state: string; codigo_servicio: string | null } | null> {
  const [offer] = await em.execute<Array<{ state: string; codigo_servicio: string | null }>>(`select state, codigo_servicio from offer where uuid = ?`, [offerUuid]);
  return offer ?? null;
}

/**
 * The geodesic distance (m, WGS 84 spheroid) from a technician's point to the
 * offer's origin, and that point: `point` when given, else the technician's
 * last known position (null distance: no point). Null when there is no such
 * offer. In the caller's transaction.
 */
export async function distanceFromOrigin(
  em: EntityManager,
  q: { offerUuid: string; technicianId: number; point: { lat: number; lng: number } | null },
): Promise<{ distance_m: number | null; lat: number | null; lng: number | null } | null> {
  const given = q.point !== null;
  const rows = await em.getConnection().execute<Array<{ distance_m: number | null; lat: number | null; lng: number | null }>>(
    `select st_distance(o.origin, p.pt) as distance_m, st_y(p.pt::geometry) as lat, st_x(p.pt::geometry) as lng
       from offer o
       cross join lateral (
         select case when ?::boolean then st_setsrid(st_makepoint(?::float8, ?::float8), 4326)::geography
                     else (select t.position from technician t where t.id = ?) end as pt
       ) p
      where o.uuid = ?`,
    [given, q.point ? q.point.lng : 0, q.point ? q.point.lat : 0, q.technicianId, q.offerUuid],
    'all',
    em.getTransactionContext(),
  );
  return rows[0] ?? null;
}

/** What an earlier distribution of an offer left done (null: no such offer). */
export interface DistributionSeen {
  state: string;
  recorded: boolean;
  centrals: string;
  technicians: string;
  unclaimed: boolean;
  pending: boolean;
}

const SEEN = prepared(`select o.state, o.distributed_at is not null as recorded, c.centrals, c.technicians, c.unclaimed,
            exists (select 1 from webhook_delivery d where d.offer_uuid = o.uuid and d.kind = 'offer-push' and d.state = 'pending') as pending
       from offer o cross join (${RECIPIENT_COUNTS}) c where o.uuid = $1`);

/** An offer's state, whether a distribution recorded it, its recipients' counts, and whether any recipient or push is still untold. */
export async function distributionSeen(em: EntityManager, offerUuid: string): Promise<DistributionSeen | null> {
  const [seen] = await sql<DistributionSeen>(
    em,
    SEEN,
    [offerUuid],
  );
  return seen ?? null;
}

/** What distribution and its payloads (src/domain/distribution/payload.ts) read of an offer: BATCH_COLUMNS. */
export type DistributedOfferFields = Pick<
  Offer,
  | 'uuid'
  | 'descripcionServicio'
  | 'originLat'
  | 'originLng'
  | 'direccionOrigen'
  | 'ciudad'
  | 'departamento'
  | 'direccionDestino'
  | 'destLat'
  | 'destLng'
  | 'observaciones'
  | 'priority'
  | 'deadlineAt'
  | 'puntoReferenciaOrigen'
  | 'puntoReferenciaDestino'
  | 'fechaCita'
  | 'horaCita'
> & { serviceType: { id: number } };

/** An offer of a distribution batch, as its locking statement reads it (plain columns, no entity to flush). */
export type DistributionBatchOffer = DistributedOfferFields & {
  state: string;
  distributedAt: Date | null;
  /** the job's own offer */
  own: boolean;
};

/** What distribution and its payloads read of an offer, under the entity's property names. */
const BATCH_COLUMNS = `o.uuid, o.state, o.distributed_at as "distributedAt", o.service_type_id as "serviceTypeId",
  o.origin_lat as "originLat", o.origin_lng as "originLng", o.priority, o.deadline_at as "deadlineAt",
  o.descripcion_servicio as "descripcionServicio", o.direccion_origen as "direccionOrigen", o.ciudad, o.departamento,
  o.direccion_destino as "direccionDestino", o.dest_lat as "destLat", o.dest_lng as "destLng", o.observaciones,
  o.punto_referencia_origen as "puntoReferenciaOrigen", o.punto_referencia_destino as "puntoReferenciaDestino",
  o.fecha_cita as "fechaCita", o.hora_cita as "horaCita"`;

/**
 * The job's own offer locked first (waited for), then up to `others` other open offers not recorded yet
 * whose window is still open and that nobody holds (SKIP LOCKED), oldest first: one statement.
 */
const LOCK_BATCH = prepared(`with own as (
       select ${BATCH_COLUMNS}, true as own from offer o where o.uuid = $1 for update
     ), others as (
       select ${BATCH_COLUMNS}, false as own from offer o
        where o.state = 'ABIERTA' and o.distributed_at is null and o.deadline_at > now() and o.uuid <> $1
        order by o.created_at limit $2 for update skip locked
     )
     select * from own union all select * from others`);

/** Locks a distribution batch in the caller's transaction: the own offer first, then up to `others` more. */
export async function lockDistributionBatch(em: EntityManager, offerUuid: string, others: number): Promise<DistributionBatchOffer[]> {
  // the outer query reads `own` before `others`: the own row is locked first, then the others
  const rows = await sql<Omit<DistributionBatchOffer, 'serviceType'> & { serviceTypeId: number }>(em, LOCK_BATCH, [offerUuid, others]);
  return rows.map(({ serviceTypeId, ...o }) => ({
    ...o,
    serviceType: { id: serviceTypeId },
    deadlineAt: readDate(em, o.deadlineAt ?? null),
    distributedAt: readDate(em, o.distributedAt),
  }));
}

// The outbox sweeper's lookups (src/domain/outbox/sweep.ts), in keyset pages (keyset.ts).

const UNDISTRIBUTED = `
  select o.uuid as id, o.created_at::text as k from offer o
   where o.state = 'ABIERTA' and o.created_at < ${AGO}
     and ${after('o.created_at', 'o.uuid')}
     and (
       o.distributed_at is null
       or exists (select 1 from offer_recipient r where r.offer_uuid = o.uuid and cardinality(r.technician_ids) > 0 and r.technicians_notified_at is null)
       or exists (select 1 from webhook_delivery d where d.offer_uuid = o.uuid and d.kind = 'offer-push' and d.state = 'pending')
     )
   order by o.created_at, o.uuid limit ?`;

const OVERDUE_EVALUATIONS = `
  select uuid as id, deadline_at::text as k from offer where state = 'ABIERTA' and deadline_at < ${AGO}
     and ${after('deadline_at', 'uuid')}
   order by deadline_at, uuid limit ?`;

const OVERDUE_EXPIRIES = `
  select uuid as id, expires_at::text as k from offer where state = 'SIN_RESPUESTA' and expires_at < ${AGO}
     and ${after('expires_at', 'uuid')}
   order by expires_at, uuid limit ?`;

/**
 * ABIERTA offers `agoMs` after creation not recorded by any distribution, or whose distribution did not finish
 * sending (a technician not notified, a push still pending).
 */
export async function undistributedPage(em: EntityManager, agoMs: number, cursor: KeysetCursor, limit: number): Promise<KeysetRow[]> {
  return em.execute<KeysetRow[]>(UNDISTRIBUTED, [agoMs, ...pageParams(cursor, limit)]);
}

/** ABIERTA offers `agoMs` past their deadline. */
export async function overdueEvaluationsPage(em: EntityManager, agoMs: number, cursor: KeysetCursor, limit: number): Promise<KeysetRow[]> {
  return em.execute<KeysetRow[]>(OVERDUE_EVALUATIONS, [agoMs, ...pageParams(cursor, limit)]);
}

/** SIN_RESPUESTA offers `agoMs` past their expiry. */
export async function overdueExpiriesPage(em: EntityManager, agoMs: number, cursor: KeysetCursor, limit: number): Promise<KeysetRow[]> {
  return em.execute<KeysetRow[]>(OVERDUE_EXPIRIES, [agoMs, ...pageParams(cursor, limit)]);
}
