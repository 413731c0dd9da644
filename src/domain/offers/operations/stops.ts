/**
 * POST /add-address (D6): appends a stop to a service not yet finished.
 * Coordinates win when valid (0 or empty count as missing, spec 2.1); else
 * the address is geocoded like the origin (D9). At most MAX_STOPS stops.
 */
import { geocode } from '../../geocode.js';
import { Offer, type ApiUser, type Stop } from '../../../db/entities/index.js';
import { readPoint, type CoordinateValue } from '../../../geo/coordinates.js';
import { DomainError } from '../../errors.js';
import type { Runtime } from '../../ports.js';
import { isUuid, lockOwnOffer, offerNotFound } from '../lifecycle/ownership.js';
import { refusedMove } from '../lifecycle/stateMachine.js';
import type { OfferState } from '../lifecycle/states.js';

export interface StopInput {
  uuid: string;
  direccion?: string;
  latitud?: CoordinateValue;
  longitud?: CoordinateValue;
  puntoReferencia?: string;
}

/** States in which a service takes no more stops. */
export const FINISHED_STATES: readonly OfferState[] = ['FINALIZADA', 'CANCELADA', 'NO_ASIGNADA', 'INACTIVA', 'EXPIRADA'];

async function place(rt: Runtime, input: StopInput): Promise<Omit<Stop, 'puntoReferencia' | 'addedAt'>> {
  const point = readPoint(input.latitud, input.longitud);
  if (point === 'invalid') throw new DomainError('stop.coordinates-invalid');
  const direccion = input.direccion?.trim() || null;
  if (point) return { direccion, latitud: point.lat, longitud: point.lng, ciudad: null, departamento: null };
  if (!direccion) throw new DomainError('stop.place-missing');
  const hit = await geocode(rt, direccion);
  if (!hit) throw new DomainError('stop.address-not-found', { direccion });
  return { direccion, latitud: hit.lat, longitud: hit.lng, ciudad: hit.ciudad, departamento: hit.departamento };
}

function refuseFinished(state: OfferState) {
  return refusedMove(state, 'add-address');
}

export async function addStop(rt: Runtime, user: ApiUser, input: StopInput): Promise<{ stops: Stop[] }> {
  // Answer 404/403 before spending a geocoder call; checked again under the lock below.
  const current = isUuid(input.uuid) ? await rt.orm.em.fork().findOne(Offer, { uuid: input.uuid.toLowerCase(), generator: user.id }) : null;
  if (!current) throw offerNotFound();
  if (FINISHED_STATES.includes(current.state)) throw refuseFinished(current.state);
  const where = await place(rt, input);
  return rt.orm.em.transactional(async (em) => {
    const offer = await lockOwnOffer(em, input.uuid, user.id);
    if (!offer) throw offerNotFound();
    if (FINISHED_STATES.includes(offer.state)) throw refuseFinished(offer.state);
    if (offer.stops.length >= rt.config.maxStops) throw new DomainError('stop.too-many', { max: rt.config.maxStops });
    const stop: Stop = { ...where, puntoReferencia: input.puntoReferencia?.trim() || null, addedAt: new Date().toISOString() };
    offer.stops = [...offer.stops, stop];
    await em.flush();
    return { stops: offer.stops };
  });
}
