/**
 * Writing a new offer, the hot path of POST /oferta, in one SQL statement:
 * the offer row (ABIERTA), its service type's name as the default
 * description, and the creation's audit row (what recordCreation writes),
 * atomically and in one round trip. The unit of work would cost about ten
 * times the CPU and four round trips here (docs/decisions.md, "Offer
 * lifecycle"); the tests read every column back through the entities.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { VehicleData } from '../../db/entities/index.js';

export interface NewOffer {
  uuid: string;
  generatorId: number;
  serviceTypeId: number;
  createdAt: Date;
  deadlineAt: Date;
  expiresAt: Date;
  origin: { lat: number; lng: number };
  direccionOrigen: string | null;
  puntoReferenciaOrigen: string | null;
  ciudad: string | null;
  departamento: string | null;
  destination: { lat: number; lng: number } | null;
  direccionDestino: string | null;
  puntoReferenciaDestino: string | null;
  /** null: the service type's name, else `defaultDescription` */
  descripcionServicio: string | null;
  fechaCita: string | null;
  horaCita: string | null;
  scheduledAt: Date;
  observaciones: string | null;
  vehiculo: VehicleData | null;
  priority: boolean;
  ofertante: string;
  internal: number | null;
  global: number | null;
  socketId: string | null;
}

export type InsertResult = 'inserted' | 'uuid-exists' | 'unknown-type';

const INSERT_OFFER = `
with st as (
  select id, coalesce(?::text, nullif(btrim(type), ''), ?::text) as descripcion from service_type where id = ?::int
), o as (
  insert into offer (uuid, generator_id, service_type_id, state, created_at, updated_at, deadline_at, expires_at,
                     origin_lat, origin_lng, direccion_origen, punto_referencia_origen, ciudad, departamento,
                     dest_lat, dest_lng, direccion_destino, punto_referencia_destino, descripcion_servicio,
                     fecha_cita, hora_cita, scheduled_at, observaciones, vehiculo, priority, ofertante,
                     internal, global, socket_id)
  select ?::uuid, ?::int, st.id, 'ABIERTA', ?::timestamptz, ?::timestamptz, ?::timestamptz, ?::timestamptz,
         ?::float8, ?::float8, ?::text, ?::text, ?::text, ?::text,
         ?::float8, ?::float8, ?::text, ?::text, st.descripcion,
         ?::text, ?::text, ?::timestamptz, ?::text, ?::jsonb, ?::boolean, ?::text,
         ?::bigint, ?::bigint, ?::text
    from st
  on conflict (uuid) do nothing
  returning uuid, created_at
)
insert into offer_transition (offer_uuid, from_state, to_state, actor, at)
select uuid, null, 'ABIERTA', ?::text, created_at from o
returning offer_uuid`;

/** Inserts the offer and its audit row, or tells why nothing was inserted. */
export async function insertOffer(em: EntityManager, o: NewOffer, actor: string, defaultDescription: string): Promise<InsertResult> {
  const conn = em.getConnection();
  const rows = await conn.execute<Array<{ offer_uuid: string }>>(INSERT_OFFER, [
    o.descripcionServicio,
    defaultDescription,
    o.serviceTypeId,
    o.uuid,
    o.generatorId,
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
    actor,
  ]);
  if (rows.length === 1) return 'inserted';
  const [type] = await conn.execute<Array<{ id: number }>>('select id from service_type where id = ?', [o.serviceTypeId]);
  return type ? 'uuid-exists' : 'unknown-type';
}
