/**
 * Writing new offers in one SQL statement: the offer rows, their service
 * type's name as the default description, and the creations' audit rows,
 * atomically and in one round trip, however many offers (POST /oferta writes
 * the offers of concurrent requests together, create.ts). POST /oferta (the
 * hot path: the unit of work would cost about ten times the CPU and four
 * round trips, docs/decisions.md, "Offer lifecycle") and POST
 * /asignacion-directa (already assigned, with its codes) both write through
 * it; the tests read every column back through the entities. Through the
 * driver (src/db/sql.ts), as every hot statement.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { DEFAULT_DESCRIPTION, type OfferDraft } from './input.js';
import { creationState, type CreationTrigger } from '../lifecycle/stateMachine.js';
import { auditActor } from '../../../limits.js';
import { prepared, sql } from '../../../db/sql.js';

/** Who a directly assigned offer goes to, and its codes (D6). */
export interface NewAssignment {
  centralId: number;
  technicianId: number | null;
  codigoServicio: string;
  codigoSolicitud: string;
}

/** A drafted body (input.ts) once located, attributed and timed. */
export interface NewOffer extends Omit<OfferDraft, 'origin' | 'scheduledAt' | 'ofertante' | 'subOfertante'> {
  generatorId: number;
  createdAt: Date;
  /** null: no response window (direct assignment) */
  deadlineAt: Date | null;
  expiresAt: Date | null;
  origin: { lat: number; lng: number };
  scheduledAt: Date;
  /** `Ofertante - Subofertante` */
  ofertante: string;
  assignment?: NewAssignment;
}

/** How the offer comes to exist (D1) and who made it (`api-user:<username>`). */
export interface Creation {
  by: CreationTrigger;
  actor: string;
}

export type InsertResult = 'inserted' | 'uuid-exists' | 'unknown-type';

/** One offer to write, and how it came to exist. */
export interface OfferWrite {
  offer: NewOffer;
  creation: Creation;
}

// The offers as one JSON array of records (one parameter however many), each with its service type's name as the
// default description. A uuid given twice in one call is written once, from its first record (the others are told
// it exists, as racing requests are); the numbers of the records written come back.
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
  insert into offer_transition (offer_uuid, from_state, to_state, actor, at)
  select o.uuid, null, o.state, v.actor, o.created_at from o join v on v.uuid = o.uuid
)
select v.n from o join v on v.uuid = o.uuid`);

const KNOWN_TYPES = prepared('select id from service_type where id = any($1::int[])');

/**
 * Inserts each offer in the state its creation gives (D1) with its audit row,
 * all in one statement, or tells why one was not inserted; the results in the
 * order of `writes`. Inside a transaction it takes part in it.
 */
export async function insertOffers(em: EntityManager, writes: readonly OfferWrite[]): Promise<InsertResult[]> {
  const rows = await sql<{ n: string }>(em, INSERT_OFFERS, [JSON.stringify(writes.map(record)), DEFAULT_DESCRIPTION]);
  const written = new Set(rows.map((r) => Number(r.n) - 1));
  if (written.size === writes.length) return writes.map(() => 'inserted');
  const types = await sql<{ id: number }>(em, KNOWN_TYPES, [[...new Set(writes.map((w) => w.offer.serviceTypeId))]]);
  const known = new Set(types.map((t) => t.id));
  return writes.map(({ offer }, i) => (written.has(i) ? 'inserted' : known.has(offer.serviceTypeId) ? 'uuid-exists' : 'unknown-type'));
}

/** One offer: `insertOffers` of one. */
export async function insertOffer(em: EntityManager, o: NewOffer, creation: Creation): Promise<InsertResult> {
  const [result] = await insertOffers(em, [{ offer: o, creation }]);
  return result;
}

/** An offer as a record of INSERT_OFFERS' set (timestamps as ISO text, which PostgreSQL reads as timestamptz). */
function record({ offer: o, creation }: OfferWrite): Record<string, unknown> {
  const a = o.assignment;
  const iso = (d: Date | null) => (d === null ? null : d.toISOString());
  return {
    uuid: o.uuid,
    generator_id: o.generatorId,
    service_type_id: o.serviceTypeId,
    state: creationState(creation.by),
    created_at: iso(o.createdAt),
    deadline_at: iso(o.deadlineAt),
    expires_at: iso(o.expiresAt),
    origin_lat: o.origin.lat,
    origin_lng: o.origin.lng,
    direccion_origen: o.direccionOrigen,
    punto_referencia_origen: o.puntoReferenciaOrigen,
    ciudad: o.ciudad,
    departamento: o.departamento,
    dest_lat: o.destination?.lat ?? null,
    dest_lng: o.destination?.lng ?? null,
    direccion_destino: o.direccionDestino,
    punto_referencia_destino: o.puntoReferenciaDestino,
    descripcion: o.descripcionServicio,
    fecha_cita: o.fechaCita,
    hora_cita: o.horaCita,
    scheduled_at: iso(o.scheduledAt),
    observaciones: o.observaciones,
    vehiculo: o.vehiculo,
    priority: o.priority,
    ofertante: o.ofertante,
    internal: o.internal,
    global: o.global,
    socket_id: o.socketId,
    telefono_cliente: o.telefonoCliente,
    assigned_central_id: a?.centralId ?? null,
    assigned_technician_id: a?.technicianId ?? null,
    codigo_servicio: a?.codigoServicio ?? null,
    codigo_solicitud: a?.codigoSolicitud ?? null,
    actor: auditActor(creation.actor),
  };
}
