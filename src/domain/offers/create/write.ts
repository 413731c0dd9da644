/**
 * Writing new offers: POST /oferta (the offers of concurrent requests
 * together, create.ts) and POST /asignacion-directa (already assigned, with
 * its codes) both create through the moves' creation executor
 * (lifecycle/moves.ts: the offer rows and their audit rows in one statement,
 * src/db/stores/offers.ts); here, an offer's row from its drafted body.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { DEFAULT_DESCRIPTION, type OfferDraft } from './input.js';
import { createOffers, type Creation, type CreationWrite, type InsertResult } from '../lifecycle/moves.js';

export type { Creation, InsertResult };

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

/** One offer to write, and how it came to exist. */
export interface OfferWrite {
  offer: NewOffer;
  creation: Creation;
  /** deliveries planned with its creation once it is inserted (the direct assignment's push) */
  pushes?: CreationWrite['pushes'];
}

/**
 * Inserts each offer in the state its creation gives (D1) with its audit row,
 * all in one statement, or tells why one was not inserted; the results in the
 * order of `writes`. Inside a transaction it takes part in it.
 */
export async function insertOffers(em: EntityManager, writes: readonly OfferWrite[]): Promise<InsertResult[]> {
  return createOffers(
    em,
    writes.map((w) => ({ record: record(w.offer), creation: w.creation, createdAt: w.offer.createdAt, pushes: w.pushes })),
    DEFAULT_DESCRIPTION,
  );
}

/** One offer: `insertOffers` of one. */
export async function insertOffer(em: EntityManager, o: NewOffer, creation: Creation, pushes?: OfferWrite['pushes']): Promise<InsertResult> {
  const [result] = await insertOffers(em, [{ offer: o, creation, pushes }]);
  return result;
}

/** An offer's row but for its state and audit actor, which its move decides (timestamps as ISO text, read as timestamptz). */
function record(o: NewOffer): CreationWrite['record'] {
  const a = o.assignment;
  const iso = (d: Date | null) => (d === null ? null : d.toISOString());
  return {
    uuid: o.uuid,
    generator_id: o.generatorId,
    service_type_id: o.serviceTypeId,
    created_at: o.createdAt.toISOString(),
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
  };
}
