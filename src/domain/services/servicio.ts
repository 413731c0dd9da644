/**
 * `servicio`: what the crew needs to do the job (D20), the same object in the
 * winning central's ASIGNADA notification, the technician's
 * `service.assigned`, the direct-assignment push and the provider's own
 * service lists. Never the customer's phone: the chat is the channel (D14).
 */
import type { Offer, Stop, VehicleData } from '../../db/entities/index.js';

/** A stop as the crew sees it: where, without when it was added. */
export type ServicioStop = Omit<Stop, 'addedAt'>;

export interface Servicio {
  uuid: string;
  codigoServicio: string | null;
  tipoServicio: number;
  nombreTipoServicio: string;
  descripcionServicio: string;
  direccionOrigen: string | null;
  latitudOrigen: number;
  longitudOrigen: number;
  puntoReferenciaOrigen: string | null;
  direccionDestino: string | null;
  latitudDestino: number | null;
  longitudDestino: number | null;
  puntoReferenciaDestino: string | null;
  ciudad: string | null;
  departamento: string | null;
  /** empty: immediate (spec 2.1) */
  fechaCita: string;
  horaCita: string;
  vehiculo: VehicleData | null;
  observaciones: string | null;
  guardian: 'SI' | 'NO';
  /** every stop added (D6), in order */
  paradas: ServicioStop[];
  /** the technician doing the job, when there is one */
  tecnico: { dniTecnico: string; nombre: string } | null;
}

/** The offer's fields `servicio` reads (an entity, or a row of the same names). */
export type ServicioSource = Pick<
  Offer,
  | 'uuid'
  | 'codigoServicio'
  | 'descripcionServicio'
  | 'direccionOrigen'
  | 'originLat'
  | 'originLng'
  | 'puntoReferenciaOrigen'
  | 'direccionDestino'
  | 'destLat'
  | 'destLng'
  | 'puntoReferenciaDestino'
  | 'ciudad'
  | 'departamento'
  | 'fechaCita'
  | 'horaCita'
  | 'vehiculo'
  | 'observaciones'
  | 'priority'
  | 'stops'
> & { serviceType: { id: number; type: string } };

export function servicio(offer: ServicioSource, technician: { dni: string; names: string } | null): Servicio {
  return {
    uuid: offer.uuid,
    codigoServicio: offer.codigoServicio ?? null,
    tipoServicio: offer.serviceType.id,
    nombreTipoServicio: offer.serviceType.type,
    descripcionServicio: offer.descripcionServicio,
    direccionOrigen: offer.direccionOrigen ?? null,
    latitudOrigen: offer.originLat,
    longitudOrigen: offer.originLng,
    puntoReferenciaOrigen: offer.puntoReferenciaOrigen ?? null,
    direccionDestino: offer.direccionDestino ?? null,
    latitudDestino: offer.destLat ?? null,
    longitudDestino: offer.destLng ?? null,
    puntoReferenciaDestino: offer.puntoReferenciaDestino ?? null,
    ciudad: offer.ciudad ?? null,
    departamento: offer.departamento ?? null,
    fechaCita: offer.fechaCita ?? '',
    horaCita: offer.horaCita ?? '',
    vehiculo: offer.vehiculo ?? null,
    observaciones: offer.observaciones ?? null,
    guardian: offer.priority ? 'SI' : 'NO',
    paradas: (offer.stops ?? []).map(stop),
    tecnico: technician ? { dniTecnico: technician.dni, nombre: technician.names } : null,
  };
}

function stop({ addedAt: _addedAt, ...rest }: Stop): ServicioStop {
  return rest;
}
