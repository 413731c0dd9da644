/**
 * The follow-up a customer sees (D14): the state, its timeline, the
 * technician and the central, the technician's last position while EN_CAMINO,
 * the ETA, origin and destination as the offer gave them. The public form
 * (a share link's, POST /tracking/track/public, D24) drops the technician
 * altogether (name, phone, position), addresses and reference points: what
 * is left is the state, its timeline, the central, the ETA and the cities.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Central, Technician, type Offer } from '../../db/entities/index.js';
import { responseTimeMin } from '../../db/stores/responses.js';
import { serviceSurveyed } from '../../db/stores/tracking.js';
import { offerTransitions } from '../../db/stores/transitions.js';
import { estimateMinutes } from '../../geo/figures.js';
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
  tecnico: { nombre: string; telefono?: string | null } | null;
  central: { nombre: string } | null;
  posicionTecnico: { latitud: number; longitud: number; fecha: string | null } | null;
  etaMinutos: number | null;
  origen: Place;
  destino: Place | null;
  encuestaRespondida: boolean;
}

/** Great-circle distance (km). */
function distanceKm(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)));
}

export async function followUp(em: EntityManager, offer: Offer, opts: { public: boolean; averageSpeedKmh: number }): Promise<FollowUp> {
  const [timeline, technician, central, survey] = await Promise.all([
    offerTransitions(em, offer.uuid),
    offer.assignedTechnician ? em.findOne(Technician, offer.assignedTechnician.id) : null,
    offer.assignedCentral ? em.findOne(Central, offer.assignedCentral.id) : null,
    serviceSurveyed(em, offer.uuid),
  ]);
  const onTheWay = offer.state === 'EN_CAMINO' && technician?.lat != null && technician.lng != null;
  const position = onTheWay ? { latitud: technician!.lat!, longitud: technician!.lng!, fecha: technician!.positionAt?.toISOString() ?? null } : null;
  const shown = !!technician && (ACTIVE_STATES.includes(offer.state) || offer.state === 'FINALIZADA');
  let eta: number | null = null;
  if (position) {
    eta = estimateMinutes(distanceKm({ lat: position.latitud, lng: position.longitud }, { lat: offer.originLat, lng: offer.originLng }), opts.averageSpeedKmh);
  } else if (offer.state === 'ASIGNADA' && offer.acceptedResponse !== null) {
    const timeMin = await responseTimeMin(em, offer.acceptedResponse!);
    eta = timeMin === null ? null : Math.round(timeMin);
  }
  const names = technician?.names.trim() ?? '';
  const place = (p: Place): Place => (opts.public ? { ciudad: p.ciudad, departamento: p.departamento } : p);
  return {
    expediente: offer.codigoServicio ?? offer.uuid,
    codigoServicio: offer.codigoServicio ?? null,
    estado: offer.state,
    // a move within a state (D20's change of technician) is no step of the customer's timeline
    timeline: timeline.filter((t) => t.from_state !== t.to_state).map((t) => ({ estado: t.to_state, fecha: new Date(t.at).toISOString() })),
    tecnico: shown && !opts.public ? { nombre: names, telefono: technician!.phone ?? null } : null,
    central: central ? { nombre: central.name } : null,
    posicionTecnico: opts.public ? null : position,
    etaMinutos: ACTIVE_STATES.includes(offer.state) ? eta : null,
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
