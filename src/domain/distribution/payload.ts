import type { DistributedOfferFields } from '../../db/stores/offers.js';

/** The offer as technicians receive it in `offer.new` (D10), without the distance. */
export interface OfferFields {
  uuid: string;
  tipoServicio: number;
  descripcionServicio: string;
  latitudOrigen: number;
  longitudOrigen: number;
  direccionOrigen: string | null;
  ciudad: string | null;
  departamento: string | null;
  direccionDestino: string | null;
  latitudDestino: number | null;
  longitudDestino: number | null;
  observaciones: string | null;
  guardian: 'SI' | 'NO';
  /** end of the response window (ISO 8601) */
  deadline: string | null;
}

/**
 * The offer's fields the payloads read: the entity, or the plain row distribution locks (distribute.ts), whose
 * statement reads exactly these (src/db/stores/offers.ts).
 */
export type OfferSource = DistributedOfferFields;

/** What a central's api_endpoint.oferta receives: the offer, its references and the central's nearby technicians. */
export interface OfferPushBody extends OfferFields {
  puntoReferenciaOrigen: string | null;
  puntoReferenciaDestino: string | null;
  fechaCita: string | null;
  horaCita: string | null;
  tecnicosCercanos: Array<{ dniTecnico: string; distance: number }>;
}

export function offerFields(offer: OfferSource): OfferFields {
  return {
    uuid: offer.uuid,
    tipoServicio: offer.serviceType.id,
    descripcionServicio: offer.descripcionServicio,
    latitudOrigen: offer.originLat,
    longitudOrigen: offer.originLng,
    direccionOrigen: offer.direccionOrigen ?? null,
    ciudad: offer.ciudad ?? null,
    departamento: offer.departamento ?? null,
    direccionDestino: offer.direccionDestino ?? null,
    latitudDestino: offer.destLat ?? null,
    longitudDestino: offer.destLng ?? null,
    observaciones: offer.observaciones ?? null,
    guardian: offer.priority ? 'SI' : 'NO',
    deadline: offer.deadlineAt ? offer.deadlineAt.toISOString() : null,
  };
}

export function offerPushBody(offer: OfferSource, nearby: Array<{ dniTecnico: string; distance: number }>): OfferPushBody {
  return {
    ...offerFields(offer),
    puntoReferenciaOrigen: offer.puntoReferenciaOrigen ?? null,
    puntoReferenciaDestino: offer.puntoReferenciaDestino ?? null,
    fechaCita: offer.fechaCita ?? null,
    horaCita: offer.horaCita ?? null,
    tecnicosCercanos: nearby,
  };
}

/** Meters to km with meter precision. */
export function km(meters: number): number {
  return Math.round(meters) / 1000;
}
