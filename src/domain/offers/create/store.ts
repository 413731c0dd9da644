/**
 * Writing a new offer in one SQL statement: the offer row, its service type's
 * name as the default description, and the creation's audit row, atomically
 * and in one round trip. POST /oferta (the hot path: the unit of work would
 * cost about ten times the CPU and four round trips, docs/decisions.md,
 * "Offer lifecycle") and POST /asignacion-directa (already assigned, with its
 * codes) both write through it; the tests read every column back through the
 * entities. Through the driver (src/db/sql.ts), as every hot statement.
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

const INSERT_OFFER = prepared(`
with st as (
  select id, coalesce($1::text, nullif(btrim(type), ''), $2::text) as descripcion from service_type where id = $3::int
), o as (
  insert into offer (uuid, generator_id, service_type_id, state, created_at, updated_at, deadline_at, expires_at,
                     origin_lat, origin_lng, direccion_origen, punto_referencia_origen, ciudad, departamento,
                     dest_lat, dest_lng, direccion_destino, punto_referencia_destino, descripcion_servicio,
                     fecha_cita, hora_cita, scheduled_at, observaciones, vehiculo, priority, ofertante,
                     internal, global, socket_id, telefono_cliente,
                     assigned_central_id, assigned_technician_id, codigo_servicio, codigo_solicitud)
  select $4::uuid, $5::int, st.id, $6::text, $7::timestamptz, $8::timestamptz, $9::timestamptz, $10::timestamptz,
         $11::float8, $12::float8, $13::text, $14::text, $15::text, $16::text,
         $17::float8, $18::float8, $19::text, $20::text, st.descripcion,
         $21::text, $22::text, $23::timestamptz, $24::text, $25::jsonb, $26::boolean, $27::text,
         $28::bigint, $29::bigint, $30::text, $31::text,
         $32::int, $33::int, $34::text, $35::text
    from st
  on conflict (uuid) do nothing
  returning uuid, state, created_at
)
insert into offer_transition (offer_uuid, from_state, to_state, actor, at)
select uuid, null, state, $36::text, created_at from o
returning offer_uuid`);

/**
 * Inserts the offer in the state its creation gives (D1) and its audit row,
 * or tells why nothing was inserted. Inside a transaction it takes part in it.
 */
export async function insertOffer(em: EntityManager, o: NewOffer, creation: Creation): Promise<InsertResult> {
  const a = o.assignment;
  const rows = await sql<{ offer_uuid: string }>(em, INSERT_OFFER, [
    o.descripcionServicio,
    DEFAULT_DESCRIPTION,
    o.serviceTypeId,
    o.uuid,
    o.generatorId,
    creationState(creation.by),
    o.createdAt,
    o.createdAt,
    o.deadlineAt,
    o.expiresAt,
    o.origin.lat,
    o.origin.lng,
    o.direccionOrigen,
    o.puntoReferenciaOrigen,
    o.ciudad,
    o.departamento,
    o.destination?.lat ?? null,
    o.destination?.lng ?? null,
    o.direccionDestino,
    o.puntoReferenciaDestino,
    o.fechaCita,
    o.horaCita,
    o.scheduledAt,
    o.observaciones,
    o.vehiculo === null ? null : JSON.stringify(o.vehiculo),
    o.priority,
    o.ofertante,
    o.internal,
    o.global,
    o.socketId,
    o.telefonoCliente,
    a?.centralId ?? null,
    a?.technicianId ?? null,
    a?.codigoServicio ?? null,
    a?.codigoSolicitud ?? null,
    auditActor(creation.actor),
  ]);
  if (rows.length === 1) return 'inserted';
  const [type] = await sql<{ id: number }>(em, 'select id from service_type where id = $1', [o.serviceTypeId]);
  return type ? 'uuid-exists' : 'unknown-type';
}
