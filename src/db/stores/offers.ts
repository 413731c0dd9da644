/**
 * Statements on `offer`.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Offer, type ApiUser } from '../entities/index.js';
import { prepared, readDate, sql, type Prepared } from '../sql.js';
import { insertCreationTransitions, insertTransitionRecords, type TransitionRecord } from './transitions.js';

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
  json_build_object('apiKey', g.api_key, 'secret', g.webhook_secret) as "generatorKeys"`;

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
  const rows = await sql<LockedOfferRow>(em, statement, [ownUuid, now.toISOString(), limit]);
  for (const w of rows) {
    w.deadlineAt = readDate(em, w.deadlineAt);
    w.expiresAt = readDate(em, w.expiresAt);
  }
  return rows;
}

/** Locks the own offer (waiting for it) and up to `limit` other ABIERTA offers past their deadline nobody holds. */
export function lockDueOffers(em: EntityManager, ownUuid: string, limit: number, now: Date): Promise<LockedOfferRow[]> {
  return lockBatch(em, LOCK_DUE, ownUuid, limit, now);
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
 * Offers moved and their audit rows, in one statement whatever their number. The keys are also given as an array:
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
     )
     ${insertTransitionRecords(4)}`);

export async function moveOfferRecords(em: EntityManager, now: Date, offers: readonly OfferMoveRecord[], audit: readonly TransitionRecord[]): Promise<void> {
  await sql(em, MOVE_OFFERS, [now.toISOString(), JSON.stringify(offers), offers.map((o) => o.uuid), JSON.stringify(audit)]);
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
