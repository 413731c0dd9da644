/**
 * Statements on `offer`. One statement that also writes it lives with the
 * other table it writes: the distribution's mark (`distributed_at`) in
 * recordRecipients (./recipients.ts). The moves' statement writes the audit
 * rows and the deliveries with the offers, from those tables' own fragments.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Offer, type ApiUser, type DeliveryKind } from '../entities/index.js';
import { prepared, readDate, sql, type Prepared } from '../sql.js';
import { insertCreationTransitions, insertTransitionRecords, type TransitionRecord } from './transitions.js';
import { after, AGO, pageParams, type KeysetCursor, type KeysetRow } from './keyset.js';
import { RECIPIENT_COUNTS } from './recipients.js';
import { deliveryRecords, insertDeliveryRecords, type ClaimedRow, type DeliveryRow } from './deliveries.js';

// --- moves ---

/** A receiver of notices as a batch reads it. */
type ReceiverColumns = Pick<ApiUser, 'id' | 'urlApi' | 'apiEndpoint'>;

/** An offer as a locking batch (of due windows, of expiries) reads it, with its generator for the notices and the 6.1. */
export interface LockedOfferRow {
  uuid: string;
  state: string;
  deadlineAt: Date | null;
  expiresAt: Date | null;
  motivo: string | null;
  codigoServicio: string | null;
  generator: ReceiverColumns;
  /** the generator's x-apikey and signing secret (D17), for a 6.1 claimed as it is written */
  generatorKeys: { apiKey: string | null; secret: string | null };
  /** the job's own offer (locked first and waited for) */
  own: boolean;
}

const LOCKED_COLUMNS = `o.uuid, o.state, o.deadline_at as "deadlineAt", o.expires_at as "expiresAt", o.motivo,
  o.codigo_servicio as "codigoServicio",
  json_build_object('id', g.id, 'urlApi', g.url_api, 'apiEndpoint', g.api_endpoint) as generator,
  json_build_object('apiKey', g.outbound_key, 'secret', g.webhook_secret) as "generatorKeys"`;

/**
 * A locking read of a batch: the job's own offer locked first, waited for, then up to $3 others that match `others`
 * and that nobody holds (SKIP LOCKED), in `order`; $2 is now.
 */
function lockingBatch(others: string, order: string): Prepared {
  return prepared(`with own as (
       select ${LOCKED_COLUMNS}, true as own from offer o join api_user g on g.id = o.generator_id where o.uuid = $1 for update of o
     ), others as (
       select ${LOCKED_COLUMNS}, false as own from offer o join api_user g on g.id = o.generator_id
        where ${others} and o.uuid <> $1
        order by ${order} limit $3 for update of o skip locked
     )
     select * from own union all select * from others`);
}

/** The own window, then others due (ABIERTA past their deadline). */
const LOCK_DUE = lockingBatch(`o.state = 'ABIERTA' and o.deadline_at <= $2`, 'o.deadline_at');
/** The own offer, then others past their expiry (SIN_RESPUESTA), oldest first. */
const LOCK_EXPIRED = lockingBatch(`o.state = 'SIN_RESPUESTA' and o.expires_at <= $2`, 'o.expires_at');

async function lockBatch(em: EntityManager, statement: Prepared, ownUuid: string, limit: number, now: Date): Promise<LockedOfferRow[]> {
  // One statement: the own row is locked first (the outer query reads `own` before `others`), then the others.
  return readLocked(em, await sql<LockedOfferRow>(em, statement, [ownUuid, now.toISOString(), limit]));
}

function readLocked(em: EntityManager, rows: LockedOfferRow[]): LockedOfferRow[] {
  for (const w of rows) {
    w.deadlineAt = readDate(em, w.deadlineAt);
    w.expiresAt = readDate(em, w.expiresAt);
  }
  return rows;
}

/**
 * Windows due (ABIERTA past their deadline) that nobody holds, oldest first: a closing run's batch without an own
 * offer. With them, in the same round trip, when the next window after $1 is due (its partial index's first entry), so
 * that the run need not ask again before its next batch (ISS32-13). Always one row at least: with nothing to lock, a
 * row of nulls but `nextDeadline`.
 */
const LOCK_DUE_ANY = prepared(`with locked as (
       select ${LOCKED_COLUMNS}, false as own from offer o join api_user g on g.id = o.generator_id
        where o.state = 'ABIERTA' and o.deadline_at <= $1
        order by o.deadline_at limit $2 for update of o skip locked
     )
     select l.*, n.at as "nextDeadline"
       from (select min(deadline_at) as at from offer where state = 'ABIERTA' and deadline_at > $1) n
       left join locked l on true
      order by l."deadlineAt"`);

/**
 * Locks the own offer (waiting for it) and up to `limit` other ABIERTA offers past their deadline nobody holds; with
 * no own offer (a closing run's later batches, ../../domain/offers/selection/closingRun.ts), up to `limit` of them,
 * and the next deadline after `now`.
 */
export async function lockDueOffers(em: EntityManager, ownUuid: string | null, limit: number, now: Date): Promise<LockedDue> {
  if (ownUuid !== null) return { rows: await lockBatch(em, LOCK_DUE, ownUuid, limit, now) };
  const rows = await sql<LockedOfferRow & { nextDeadline: Date | null }>(em, LOCK_DUE_ANY, [now.toISOString(), limit]);
  const next = readDate(em, rows[0]?.nextDeadline ?? null);
  return { rows: readLocked(em, rows.filter((r) => r.uuid !== null).map(({ nextDeadline: _next, ...r }) => r)), next };
}

/** A locked batch of due windows; without an own offer, also when the next window after its `now` is due (null: none). */
export interface LockedDue {
  rows: LockedOfferRow[];
  /** read with the batch when it had no own offer; undefined otherwise */
  next?: Date | null;
}

/** Locks the own offer (waiting for it) and up to `limit` other SIN_RESPUESTA offers past their expiry nobody holds. */
export function lockExpiredOffers(em: EntityManager, ownUuid: string, limit: number, now: Date): Promise<LockedOfferRow[]> {
  return lockBatch(em, LOCK_EXPIRED, ownUuid, limit, now);
}

/** An offer's change by a set-based move: its new state, its assignment when the move makes one, its codes when given. */
export interface OfferMoveRecord {
  uuid: string;
  state: string;
  /** whether the move sets the assignment (central, technician, accepted response, ranking) */
  assign: boolean;
  central: number | null;
  technician: number | null;
  response: number | null;
  ranking: unknown;
  codigo_servicio: string | null;
  codigo_solicitud: string | null;
}

/**
 * Offers moved, their audit rows and the deliveries their moves plan, in one statement whatever their number (one
 * round trip of a closing batch's few, issue 32). The keys are also given as an array:
 * the planner cannot count a jsonb record set's rows (it assumes 100) and, without them, joined it to the whole
 * offer table by a sequential scan, a cost that grows with the table. Codes already given are kept (D6).
 */
const MOVE_OFFERS = prepared(`with moved as (
       update offer o
          set state = v.state,
              assigned_central_id = case when v.assign then v.central else o.assigned_central_id end,
              assigned_technician_id = case when v.assign then v.technician else o.assigned_technician_id end,
              accepted_response = case when v.assign then v.response else o.accepted_response end,
              ranking = case when v.assign then v.ranking else o.ranking end,
              codigo_servicio = coalesce(o.codigo_servicio, v.codigo_servicio),
              codigo_solicitud = coalesce(o.codigo_solicitud, v.codigo_solicitud),
              updated_at = $1
         from jsonb_to_recordset($2::jsonb)
           as v(uuid uuid, state text, assign boolean, central int, technician int, response int, ranking jsonb,
                codigo_servicio text, codigo_solicitud text)
        where o.uuid = any($3::uuid[]) and o.uuid = v.uuid
     ), delivered as (
       ${insertDeliveryRecords(5)}
     )
     ${insertTransitionRecords(4)}`);

export async function moveOfferRecords(
  em: EntityManager,
  now: Date,
  offers: readonly OfferMoveRecord[],
  audit: readonly TransitionRecord[],
  deliveries: ReadonlyArray<DeliveryRow | ClaimedRow> = [],
): Promise<void> {
  await sql(em, MOVE_OFFERS, [now.toISOString(), JSON.stringify(offers), offers.map((o) => o.uuid), JSON.stringify(audit), deliveryRecords(deliveries)]);
}

/** An offer as INSERT_OFFERS reads it (timestamps as ISO text), with its creation's audit actor. */
export interface OfferInsertRecord {
  uuid: string;
  generator_id: number;
  service_type_id: number;
  state: string;
  created_at: string;
  deadline_at: string | null;
  expires_at: string | null;
  origin_lat: number;
  origin_lng: number;
  direccion_origen: string | null;
  punto_referencia_origen: string | null;
  ciudad: string | null;
  departamento: string | null;
  dest_lat: number | null;
  dest_lng: number | null;
  direccion_destino: string | null;
  punto_referencia_destino: string | null;
  descripcion: string | null;
  fecha_cita: string | null;
  hora_cita: string | null;
  scheduled_at: string | null;
  observaciones: string | null;
  vehiculo: unknown;
  priority: boolean;
  ofertante: string;
  internal: unknown;
  global: unknown;
  socket_id: string | null;
  telefono_cliente: string | null;
  assigned_central_id: number | null;
  assigned_technician_id: number | null;
  codigo_servicio: string | null;
  codigo_solicitud: string | null;
  actor: string;
}

// The offers as one JSON array of records (one parameter however many), each with its service type's name as the
// default description, and their creations' audit rows. A uuid given twice in one call is written once, from its
// first record (the others are told it exists, as racing requests are); the numbers of the records written come back.
const INSERT_OFFERS = prepared(`
with v as (
  select distinct on (v.uuid) e.n, v.*, coalesce(v.descripcion, nullif(btrim(st.type), ''), $2::text) as descripcion_servicio
    from jsonb_array_elements($1::jsonb) with ordinality as e(j, n),
         jsonb_to_record(e.j) as v(
           uuid uuid, generator_id int, service_type_id int, state text, created_at timestamptz, deadline_at timestamptz,
           expires_at timestamptz, origin_lat float8, origin_lng float8, direccion_origen text, punto_referencia_origen text,
           ciudad text, departamento text, dest_lat float8, dest_lng float8, direccion_destino text,
           punto_referencia_destino text, descripcion text, fecha_cita text, hora_cita text, scheduled_at timestamptz,
           observaciones text, vehiculo jsonb, priority boolean, ofertante text, internal bigint, global bigint,
           socket_id text, telefono_cliente text, assigned_central_id int, assigned_technician_id int,
           codigo_servicio text, codigo_solicitud text, actor text)
    join service_type st on st.id = v.service_type_id
   order by v.uuid, e.n
), o as (
  insert into offer (uuid, generator_id, service_type_id, state, created_at, updated_at, deadline_at, expires_at,
                     origin_lat, origin_lng, direccion_origen, punto_referencia_origen, ciudad, departamento,
                     dest_lat, dest_lng, direccion_destino, punto_referencia_destino, descripcion_servicio,
                     fecha_cita, hora_cita, scheduled_at, observaciones, vehiculo, priority, ofertante,
                     internal, global, socket_id, telefono_cliente,
                     assigned_central_id, assigned_technician_id, codigo_servicio, codigo_solicitud)
  select uuid, generator_id, service_type_id, state, created_at, created_at, deadline_at, expires_at,
         origin_lat, origin_lng, direccion_origen, punto_referencia_origen, ciudad, departamento,
         dest_lat, dest_lng, direccion_destino, punto_referencia_destino, descripcion_servicio,
         fecha_cita, hora_cita, scheduled_at, observaciones, vehiculo, priority, ofertante,
         internal, global, socket_id, telefono_cliente,
         assigned_central_id, assigned_technician_id, codigo_servicio, codigo_solicitud
    from v
  on conflict (uuid) do nothing
  returning uuid, state, created_at
), audit as (
  ${insertCreationTransitions('o', 'v')}
)
select v.n from o join v on v.uuid = o.uuid`);

/** Inserts the offers and their audit rows in one statement; the indexes (0-based) of the records written. */
export async function insertOfferRecords(em: EntityManager, records: readonly OfferInsertRecord[], defaultDescription: string): Promise<Set<number>> {
  const rows = await sql<{ n: string }>(em, INSERT_OFFERS, [JSON.stringify(records), defaultDescription]);
  return new Set(rows.map((r) => Number(r.n) - 1));
}

const KNOWN_TYPES = prepared('select id from service_type where id = any($1::int[])');

/** Which of these service types exist (why an offer was not inserted). */
export async function knownServiceTypeIds(em: EntityManager, ids: readonly number[]): Promise<Set<number>> {
  return new Set((await sql<{ id: number }>(em, KNOWN_TYPES, [[...new Set(ids)]])).map((t) => t.id));
}

/** D6: whether no offer has `code` in `column`, under a transaction-scoped advisory lock on the code. */
export async function lockFreeOfferCode(em: EntityManager, column: 'codigo_servicio' | 'codigo_solicitud', code: string): Promise<boolean> {
  await em.execute(`select pg_advisory_xact_lock(hashtext(?))`, [code]);
  const taken = await em.execute<Array<{ n: number }>>(`select 1 as n from offer where ${column} = ? limit 1`, [code]);
  return taken.length === 0;
}

/** D3: a repeated POST /oferta's socket subscribes to the existing offer. */
export async function setOfferSocket(em: EntityManager, uuid: string, socketId: string): Promise<void> {
  await em.nativeUpdate(Offer, { uuid }, { socketId });
}

// --- stores ---

/** An offer's state and its unsent deliveries of one kind. */
const STATE_AND_UNFINISHED = prepared(`select o.state, o.deadline_at as "deadlineAt",
            array(select d.id::text from webhook_delivery d where d.offer_uuid = o.uuid and d.kind = $1 and d.state in ('pending', 'sending')) as unfinished
       from offer o where o.uuid = $2`);

/**
 * An offer's state, its deadline and the ids of its deliveries of `kind` still to send or
 * being sent, in one read (one snapshot: deliveries written with the state
 * are seen with it). Null when there is no such offer.
 */
export async function offerStateAndUnfinished(
  em: EntityManager,
  offerUuid: string,
  kind: DeliveryKind,
): Promise<{ state: string; deadlineAt: Date | null; unfinished: string[] } | null> {
  const [row] = await sql<{ state: string; deadlineAt: Date | null; unfinished: string[] }>(
    em,
    STATE_AND_UNFINISHED,
    [kind, offerUuid],
  );
  if (row) row.deadlineAt = readDate(em, row.deadlineAt);
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
  /** less than the cutoff of its window left (or none): no longer distributed (issue 32) */
  late: boolean;
}

const SEEN = prepared(`select o.state, o.distributed_at is not null as recorded, c.centrals, c.technicians, c.unclaimed,
            o.deadline_at <= now() + $2 * interval '1 millisecond' as late,
            exists (select 1 from webhook_delivery d where d.offer_uuid = o.uuid and d.kind = 'offer-push' and d.state = 'pending') as pending
       from offer o cross join (${RECIPIENT_COUNTS}) c where o.uuid = $1`);

/**
 * An offer's state, whether a distribution recorded it, its recipients' counts, whether any recipient or push is
 * still untold, and whether less than `cutoffMs` of its window is left.
 */
export async function distributionSeen(em: EntityManager, offerUuid: string, cutoffMs: number): Promise<DistributionSeen | null> {
  const [seen] = await sql<DistributionSeen>(em, SEEN, [offerUuid, cutoffMs]);
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
  /** less than the cutoff of its window left: not distributed (only the own offer can be; the others are not taken) */
  late: boolean;
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
 * with more than the cutoff ($3 ms) of their window left and that nobody holds (SKIP LOCKED), newest first (under a
 * backlog, the offers with the most window left are the ones still worth sending, DIST-1): one statement.
 */
const LOCK_BATCH = prepared(`with own as (
       select ${BATCH_COLUMNS}, true as own, o.deadline_at <= now() + $3 * interval '1 millisecond' as late from offer o where o.uuid = $1 for update
     ), others as (
       select ${BATCH_COLUMNS}, false as own, false as late from offer o
        where o.state = 'ABIERTA' and o.distributed_at is null and o.deadline_at > now() + $3 * interval '1 millisecond' and o.uuid <> $1
          and not coalesce((select late from own), false)
        order by o.created_at desc limit $2 for update skip locked
     )
     select * from own union all select * from others`);

/** Locks a distribution batch in the caller's transaction: the own offer first, then up to `others` more with more than `cutoffMs` of their window left. */
export async function lockDistributionBatch(em: EntityManager, offerUuid: string, others: number, cutoffMs: number): Promise<DistributionBatchOffer[]> {
  // the outer query reads `own` before `others`: the own row is locked first, then the others
  const rows = await sql<Omit<DistributionBatchOffer, 'serviceType'> & { serviceTypeId: number }>(em, LOCK_BATCH, [offerUuid, others, cutoffMs]);
  return rows.map(({ serviceTypeId, ...o }) => ({
    ...o,
    serviceType: { id: serviceTypeId },
    deadlineAt: readDate(em, o.deadlineAt ?? null),
    distributedAt: readDate(em, o.distributedAt),
  }));
}

/** Of these uuids, those whose offer is gone, no longer open, or with less than $2 ms of its window left (DIST-1). */
const TOO_LATE_TO_DISTRIBUTE = prepared(`select u.uuid from unnest($1::uuid[]) as u(uuid) left join offer o on o.uuid = u.uuid
   where o.uuid is null or o.state <> 'ABIERTA' or o.deadline_at <= now() + $2 * interval '1 millisecond'`);

/** Of the offers of waiting distribution jobs, those no distribution should send any more: their jobs are withdrawn. */
export async function tooLateToDistribute(em: EntityManager, uuids: readonly string[], cutoffMs: number): Promise<string[]> {
  return (await sql<{ uuid: string }>(em, TOO_LATE_TO_DISTRIBUTE, [uuids, cutoffMs])).map((r) => r.uuid);
}

/** The oldest ABIERTA window past its deadline by less than $1 ms: how far behind the closing is (ms). */
const OLDEST_OVERDUE = prepared(`select extract(epoch from now() - min(deadline_at)) * 1000 as ms from offer
   where state = 'ABIERTA' and deadline_at <= now() and deadline_at > now() - $1 * interval '1 millisecond'`);

/** The earliest deadline of an open window after $1 (from the partial index of open deadlines). */
const NEXT_OPEN_DEADLINE = prepared(`select min(deadline_at) as at from offer where state = 'ABIERTA' and deadline_at > $1`);

/** When the next window due after `after` is due (it may be already); null when there is none. */
export async function nextOpenDeadline(em: EntityManager, after: Date): Promise<Date | null> {
  const [row] = await sql<{ at: Date | null }>(em, NEXT_OPEN_DEADLINE, [after.toISOString()]);
  return readDate(em, row?.at ?? null);
}

/** How overdue the oldest open window is (ms), ignoring those overdue by `stuckMs` or more; null when none is. */
export async function oldestOverdueWindowMs(em: EntityManager, stuckMs: number): Promise<number | null> {
  const [row] = await sql<{ ms: string | null }>(em, OLDEST_OVERDUE, [stuckMs]);
  return row?.ms == null ? null : Number(row.ms);
}

// The outbox sweeper's lookups (src/domain/outbox/sweep.ts), in keyset pages (keyset.ts).

const UNDISTRIBUTED = `
  select o.uuid as id, o.created_at::text as k from offer o
   where o.state = 'ABIERTA' and o.created_at < ${AGO} and o.deadline_at > now() + ? * interval '1 millisecond'
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
 * ABIERTA offers `agoMs` after creation, with more than `cutoffMs` of their window left (DIST-1), not recorded by any distribution, or whose distribution did not finish
 * sending (a technician not notified, a push still pending).
 */
export async function undistributedPage(em: EntityManager, agoMs: number, cutoffMs: number, cursor: KeysetCursor, limit: number): Promise<KeysetRow[]> {
  return em.execute<KeysetRow[]>(UNDISTRIBUTED, [agoMs, cutoffMs, ...pageParams(cursor, limit)]);
}

/** ABIERTA offers `agoMs` past their deadline. */
export async function overdueEvaluationsPage(em: EntityManager, agoMs: number, cursor: KeysetCursor, limit: number): Promise<KeysetRow[]> {
  return em.execute<KeysetRow[]>(OVERDUE_EVALUATIONS, [agoMs, ...pageParams(cursor, limit)]);
}

/** SIN_RESPUESTA offers `agoMs` past their expiry. */
export async function overdueExpiriesPage(em: EntityManager, agoMs: number, cursor: KeysetCursor, limit: number): Promise<KeysetRow[]> {
  return em.execute<KeysetRow[]>(OVERDUE_EXPIRIES, [agoMs, ...pageParams(cursor, limit)]);
}

const ACTIVE_SERVICE_OF_TECHNICIAN = prepared(`
  select o.uuid from technician t join offer o on o.uuid = t.busy_offer_uuid
   where t.id = $1 and o.assigned_technician_id = $1 and o.state in ('ASIGNADA', 'EN_CAMINO', 'EN_SITIO')`);

/**
 * The service this technician is doing (D16 holds it from ASIGNADA on), with
 * its service type and technician loaded; null: none.
 */
export async function activeServiceOfTechnician(em: EntityManager, technicianId: number): Promise<Offer | null> {
  const [row] = await sql<{ uuid: string }>(em, ACTIVE_SERVICE_OF_TECHNICIAN, [technicianId]);
  if (!row) return null;
  return em.findOne(Offer, { uuid: row.uuid }, { populate: ['serviceType', 'assignedTechnician'] });
}

// --- the provider's reading (D20) ---

/** An offer as the central's service list reads it: its `servicio`'s fields, its state, central and technician. */
export interface CentralServiceRow {
  uuid: string;
  state: string;
  createdAt: Date;
  codigoServicio: string | null;
  codigoSolicitud: string | null;
  descripcionServicio: string;
  direccionOrigen: string | null;
  originLat: number;
  originLng: number;
  puntoReferenciaOrigen: string | null;
  direccionDestino: string | null;
  destLat: number | null;
  destLng: number | null;
  puntoReferenciaDestino: string | null;
  ciudad: string | null;
  departamento: string | null;
  fechaCita: string | null;
  horaCita: string | null;
  vehiculo: Offer['vehiculo'];
  observaciones: string | null;
  priority: boolean;
  stops: Offer['stops'];
  serviceTypeId: number;
  serviceTypeName: string;
  centralNit: string;
  centralName: string;
  technicianDni: string | null;
  technicianNames: string | null;
}

/**
 * A page of the offers assigned to one of an API user's centrals (D20),
 * newest first, optionally in one state, with how many there are in all: one
 * statement (the count, and the page joined to it, so a page past the end
 * still tells the total). Never the customer's phone.
 */
export async function centralServicesPage(
  em: EntityManager,
  apiUserId: number,
  estado: string | null,
  limit: number,
  offset: number,
): Promise<{ rows: CentralServiceRow[]; total: number }> {
  const where = `c.api_user_id = ? and (?::text is null or o.state = ?::text)`;
  const rows = await em.execute<Array<CentralServiceRow & { total: number }>>(
    `select t.total, p.* from (select count(*)::int as total from offer o join central c on c.id = o.assigned_central_id where ${where}) t
     left join lateral (
       select o.uuid, o.state, o.created_at as "createdAt", o.codigo_servicio as "codigoServicio", o.codigo_solicitud as "codigoSolicitud",
              o.descripcion_servicio as "descripcionServicio", o.direccion_origen as "direccionOrigen", o.origin_lat as "originLat",
              o.origin_lng as "originLng", o.punto_referencia_origen as "puntoReferenciaOrigen", o.direccion_destino as "direccionDestino",
              o.dest_lat as "destLat", o.dest_lng as "destLng", o.punto_referencia_destino as "puntoReferenciaDestino", o.ciudad,
              o.departamento, o.fecha_cita as "fechaCita", o.hora_cita as "horaCita", o.vehiculo, o.observaciones, o.priority, o.stops,
              st.id as "serviceTypeId", st.type as "serviceTypeName", c.nit as "centralNit", c.name as "centralName",
              tech.dni as "technicianDni", tech.names as "technicianNames"
         from offer o
         join central c on c.id = o.assigned_central_id
         join service_type st on st.id = o.service_type_id
         left join technician tech on tech.id = o.assigned_technician_id
        where ${where}
        order by o.created_at desc, o.uuid
        limit ? offset ?
     ) p on true`,
    [apiUserId, estado, estado, apiUserId, estado, estado, limit, offset],
  );
  const total = rows[0]?.total ?? 0;
  return { rows: rows.filter((r) => r.uuid !== null).map(({ total: _t, ...r }) => ({ ...r, createdAt: new Date(r.createdAt) })), total };
}

/** An open offer, or a service whose technician is on the way, on the operators' live map (D23). */
export interface MapOfferRow {
  uuid: string;
  state: string;
  codigoServicio: string | null;
  tipo: string;
  direccion: string | null;
  ciudad: string | null;
  originLat: number;
  originLng: number;
  deadlineAt: string | null;
  generador: string;
  technicianId: number | null;
  tecnico: string | null;
  techLat: number | null;
  techLng: number | null;
  techPositionAt: string | null;
}

const MAP_OFFER_COLUMNS = `o.uuid, o.state, o.codigo_servicio as "codigoServicio", st.type as tipo, o.direccion_origen as direccion, o.ciudad,
       o.origin_lat as "originLat", o.origin_lng as "originLng", o.deadline_at as "deadlineAt", coalesce(g.business_name, g.username) as generador,
       t.id as "technicianId", t.names as tecnico, t.lat as "techLat", t.lng as "techLng", t.position_at as "techPositionAt"
  from offer o join service_type st on st.id = o.service_type_id join api_user g on g.id = o.generator_id
  left join technician t on t.id = o.assigned_technician_id`;

// Each half by its own partial index (offer_open_created_index, offer_active_index).
const MAP_OFFERS = prepared(`
  (select ${MAP_OFFER_COLUMNS} where o.state = 'ABIERTA' order by o.created_at desc limit $1)
  union all
  (select ${MAP_OFFER_COLUMNS} where o.state in ('ASIGNADA', 'EN_CAMINO') order by o.created_at desc limit $1)`);

/** The open offers and the services on the way (ASIGNADA, EN_CAMINO) with their technician's position: one statement, at most `limit` of each. */
export async function offersForMap(em: EntityManager, limit: number): Promise<MapOfferRow[]> {
  return sql<MapOfferRow>(em, MAP_OFFERS, [limit]);
}

/** A service in the operators' work queue (D23), with its facts. */
export interface WorkQueueRow {
  uuid: string;
  state: string;
  codigoServicio: string | null;
  tipo: string;
  direccion: string | null;
  ciudad: string | null;
  createdAt: string;
  deadlineAt: string | null;
  lastChangeAt: string;
  generador: string;
  central: string | null;
  technicianId: number | null;
  tecnico: string | null;
  tecnicoIdentificador: string | null;
  techLat: number | null;
  techLng: number | null;
  techPositionAt: string | null;
  chatMessages: number;
  chatLastAt: string | null;
  smsSent: number;
  smsFailed: number;
  surveyRating: number | null;
  failedDeliveries: number;
}

// The candidates each by an index: the active services (offer_active_index), the windows past their deadline
// (offer_open_deadline_index), the offers with a delivery failed since $2 (webhook_delivery_failed_created_index);
// then each one's facts by its offer's indexes.
const WORK_QUEUE = prepared(`
  with picked as (
    select o.uuid from offer o where o.state in ('ASIGNADA', 'EN_CAMINO', 'EN_SITIO')
    union
    select o.uuid from offer o where o.state = 'ABIERTA' and o.deadline_at < $1
    union
    select d.offer_uuid from webhook_delivery d where d.state = 'failed' and d.created_at >= $2 and d.offer_uuid is not null
  )
  select o.uuid, o.state, o.codigo_servicio as "codigoServicio", st.type as tipo, o.direccion_origen as direccion, o.ciudad,
         o.created_at as "createdAt", o.deadline_at as "deadlineAt", coalesce(lt.at, o.updated_at) as "lastChangeAt",
         coalesce(g.business_name, g.username) as generador, c.name as central,
         t.id as "technicianId", t.names as tecnico, t.identifier as "tecnicoIdentificador", t.lat as "techLat", t.lng as "techLng", t.position_at as "techPositionAt",
         (select count(*)::int from chat_message m where m.offer_uuid = o.uuid) as "chatMessages",
         (select max(m.enviado_en) from chat_message m where m.offer_uuid = o.uuid) as "chatLastAt",
         (select count(*)::int from sms_message s where s.offer_uuid = o.uuid and s.state = 'sent') as "smsSent",
         (select count(*)::int from sms_message s where s.offer_uuid = o.uuid and s.state = 'failed') as "smsFailed",
         sv.rating as "surveyRating",
         (select count(*)::int from webhook_delivery d where d.offer_uuid = o.uuid and d.state = 'failed' and d.created_at >= $2) as "failedDeliveries"
    from picked p
    join offer o on o.uuid = p.uuid
    join service_type st on st.id = o.service_type_id
    join api_user g on g.id = o.generator_id
    left join central c on c.id = o.assigned_central_id
    left join technician t on t.id = o.assigned_technician_id
    left join service_survey sv on sv.offer_uuid = o.uuid
    left join lateral (select tr.at from offer_transition tr where tr.offer_uuid = o.uuid order by tr.id desc limit 1) lt on true
   order by o.created_at desc
   limit $3`);

/**
 * The work queue's services (D23): every active one (ASIGNADA, EN_CAMINO, EN_SITIO), every window still open
 * past `lateBefore`, every offer with a delivery failed since `failedSince`; with their facts, newest first, at
 * most `limit`. One statement.
 */
export async function workQueueRows(em: EntityManager, lateBefore: Date, failedSince: Date, limit: number): Promise<WorkQueueRow[]> {
  return sql<WorkQueueRow>(em, WORK_QUEUE, [lateBefore.toISOString(), failedSince.toISOString(), limit]);
}
