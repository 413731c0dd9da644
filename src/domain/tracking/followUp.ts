/**
 * The follow-up a customer sees (D14): the state, its timeline, the
 * technician and the central, the technician's last position while EN_CAMINO,
 * the ETA, origin and destination as the offer gave them; the technician's
 * identifier and the vehicle's plate, the insurer's name and help line, the
 * distance left and the arrival as a clock time (CUS-2). The public form
 * (a share link's, POST /tracking/track/public, D24) drops the technician
 * altogether (name, phone, identifier, position, the distance left), the
 * plate, addresses and reference points: what is left is the state, its
 * timeline, the central, the insurer, the arrival time and the cities.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiUser, Central, Technician, type Offer } from '../../db/entities/index.js';
import { arrivalPromise } from '../../db/stores/responses.js';
import { serviceSurveyed } from '../../db/stores/tracking.js';
import { offerTransitions } from '../../db/stores/transitions.js';
import { arrivalOf, distanceMetres, minutesUntil, type Arrival } from './arrival.js';
import { ACTIVE_STATES, type OfferState } from '../offers/lifecycle/states.js';

export interface Place {
  direccion?: string | null;
  puntoReferencia?: string | null;
  latitud?: number | null;
  longitud?: number | null;
  ciudad: string | null;
  departamento: string | null;
}

export interface FollowUp {
  expediente: string;
  codigoServicio: string | null;
  estado: OfferState;
  timeline: Array<{ estado: string; fecha: string }>;
  tecnico: { nombre: string; telefono?: string | null; identificador: string | null } | null;
  central: { nombre: string } | null;
  posicionTecnico: { latitud: number; longitud: number; fecha: string | null } | null;
  /** whole minutes from now to `llegada` (0 once due) */
  etaMinutos: number | null;
  /** the expected arrival as a clock time and where it comes from (CUS-2) */
  llegada: Arrival | null;
  /** straight-line metres from the technician's last position to the origin, while on the way */
  distanciaMetros: number | null;
  /** the vehicle's plate, as the generator's POST /asignacion gave it */
  placa?: string | null;
  /** the generator: its business name and its help line for customers (CUS-3) */
  aseguradora: { nombre: string; lineaAyuda: string | null };
  origen: Place;
  destino: Place | null;
  encuestaRespondida: boolean;
}

export async function followUp(em: EntityManager, offer: Offer, opts: { public: boolean; averageSpeedKmh: number }): Promise<FollowUp> {
  const approaching = offer.state === 'ASIGNADA' || offer.state === 'EN_CAMINO';
  const [timeline, technician, central, survey, generator, promise] = await Promise.all([
    offerTransitions(em, offer.uuid),
    offer.assignedTechnician ? em.findOne(Technician, offer.assignedTechnician.id) : null,
    offer.assignedCentral ? em.findOne(Central, offer.assignedCentral.id) : null,
    serviceSurveyed(em, offer.uuid),
    em.findOne(ApiUser, offer.generator.id),
    approaching && offer.acceptedResponse != null ? arrivalPromise(em, offer.acceptedResponse) : null,
  ]);
  const onTheWay = offer.state === 'EN_CAMINO' && technician?.lat != null && technician.lng != null;
  const position = onTheWay ? { latitud: technician!.lat!, longitud: technician!.lng!, fecha: technician!.positionAt?.toISOString() ?? null } : null;
  const origin = { lat: offer.originLat, lng: offer.originLng };
  const llegada = approaching
    ? arrivalOf({
        origin,
        position: position ? { lat: position.latitud, lng: position.longitud, at: technician!.positionAt ?? new Date() } : null,
        promise: promise ? { minutes: promise.timeMin, givenAt: promise.givenAt, from: promise.lat != null && promise.lng != null ? { lat: promise.lat, lng: promise.lng } : null } : null,
        speedKmh: opts.averageSpeedKmh,
      })
    : null;
  const names = technician?.names.trim() ?? '';
  const place = (p: Place): Place => (opts.public ? { ciudad: p.ciudad, departamento: p.departamento } : p);
  return {
    expediente: offer.codigoServicio ?? offer.uuid,
    codigoServicio: offer.codigoServicio ?? null,
    estado: offer.state,
    // a move within a state (D20's change of technician) is no step of the customer's timeline
    timeline: timeline.filter((t) => t.from_state !== t.to_state).map((t) => ({ estado: t.to_state, fecha: new Date(t.at).toISOString() })),
    tecnico:
      technician && !opts.public && (ACTIVE_STATES.includes(offer.state) || offer.state === 'FINALIZADA')
        ? { nombre: names, telefono: technician.phone ?? null, identificador: technician.identifier ?? null }
        : null,
    central: central ? { nombre: central.name } : null,
    posicionTecnico: opts.public ? null : position,
    etaMinutos: llegada && ACTIVE_STATES.includes(offer.state) ? minutesUntil(llegada) : null,
    llegada: ACTIVE_STATES.includes(offer.state) ? llegada : null,
    distanciaMetros: position && !opts.public ? Math.round(distanceMetres({ lat: position.latitud, lng: position.longitud }, origin)) : null,
    ...(opts.public ? {} : { placa: offer.placa ?? null }),
    aseguradora: { nombre: generator?.businessName ?? '', lineaAyuda: generator?.helpLine ?? null },
    origen: place({
      direccion: offer.direccionOrigen ?? null,
      puntoReferencia: offer.puntoReferenciaOrigen ?? null,
      latitud: offer.originLat,
      longitud: offer.originLng,
      ciudad: offer.ciudad ?? null,
      departamento: offer.departamento ?? null,
    }),
    destino:
      offer.destLat != null || offer.direccionDestino
        ? place({
            direccion: offer.direccionDestino ?? null,
            puntoReferencia: offer.puntoReferenciaDestino ?? null,
            latitud: offer.destLat ?? null,
            longitud: offer.destLng ?? null,
            ciudad: offer.ciudad ?? null,
            departamento: offer.departamento ?? null,
          })
        : null,
    encuestaRespondida: survey,
  };
}
