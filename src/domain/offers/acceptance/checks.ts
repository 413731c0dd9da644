/**
 * D4's checks of PUT /aceptacion after the body (D4.2–6), as one pure function
 * of the facts read, whichever way they were read: the quick path reads them
 * in one statement, the transactional path through the entities
 * (acceptance.ts); both decide with `checkAcceptance`, and
 * test/offers/acceptanceChecks.test.ts feeds both the same cases. The body and
 * its coordinates (D4.1) are checked before (parseAcceptance), and the
 * technician's position after (responseFigures, src/geo/figures.ts), by both
 * paths alike. D20's plausibility (recipient, busy technician, arrival time)
 * is decided here too, before any response is recorded or ranked.
 */
import type { ApiUser } from '../../../db/entities/index.js';
import { DomainError } from '../../errors.js';
import { profileEndpoint } from '../../../webhooks/dispatch.js';
import type { OfferState } from '../lifecycle/states.js';

/** What D4.2–6 decide on; null where the party was not found. */
export interface AcceptanceCheckFacts {
  /** the central whose tax id is `dniPrestador`, when it is the caller's */
  central: { id: number; nit: string } | null;
  offer: { state: OfferState } | null;
  /** the offer's generator */
  generator: Pick<ApiUser, 'id' | 'nit' | 'urlApi' | 'apiEndpoint'> | null;
  /** the technician `dniTecnico` of that central, and the service holding it (D16), if any */
  technician: { id: number; busyOfferUuid: string | null } | null;
  /** D20: whether the offer was distributed to that central (an offer_recipient row) */
  recipient: boolean;
  /** D2's distance (m) from the technician's point (the given coordinates, else its last position) to the origin; null: unknown */
  distanceM: number | null;
}

/** What the request names. */
export interface AcceptanceRequest {
  offerUuid: string;
  dniPrestador: string;
  dniTecnico: string;
  /** tiempoLlegadaSitio, when given */
  minutes: number | null;
}

/**
 * Where an accepted request goes, by the offer's state (D4 a, b, c): `record`
 * (ABIERTA, another central: the quick path may record it), `own` (ABIERTA,
 * the generator's own central: assigned at once) or `late` (SIN_RESPUESTA).
 */
export type AcceptanceRoute = 'record' | 'own' | 'late';

export type AcceptanceVerdict = { ok: true; route: AcceptanceRoute } | { ok: false; error: DomainError };

/** D4.6: states that take no acceptance (decided again under the offer's lock). */
export function refusal(state: OfferState): DomainError | null {
  switch (state) {
    case 'ABIERTA':
    case 'SIN_RESPUESTA':
      return null;
    case 'ACEPTADA':
    case 'ASIGNADA':
    case 'EN_CAMINO':
    case 'EN_SITIO':
      return new DomainError('acceptance.already-accepted', { state });
    default:
      return new DomainError('acceptance.closed', { state });
  }
}

/** D20: the fastest a tow truck is taken to drive, in a straight line. */
export const PLAUSIBLE_SPEED_KMH = 120;

/** D20: the least arrival time (minutes) plausible from `distanceM` metres away: at 120 km/h, rounded down. */
export function leastArrivalMinutes(distanceM: number): number {
  return Math.floor((distanceM / 1000 / PLAUSIBLE_SPEED_KMH) * 60);
}

/**
 * D20's plausibility, after D4.6 and before the route is taken (so before any
 * ranking): the offer was distributed to the central (not asked of the
 * generator's own central, spec 3), the technician is not busy with another
 * service, and a given arrival time is not below the least plausible one (no
 * known position, no check).
 */
function implausible(a: AcceptanceRequest, f: AcceptanceCheckFacts, own: boolean): DomainError | null {
  if (!own && !f.recipient) return new DomainError('acceptance.not-a-recipient', { nit: a.dniPrestador });
  const busy = f.technician?.busyOfferUuid ?? null;
  if (busy !== null && busy !== a.offerUuid) return new DomainError('technician.busy', { dni: a.dniTecnico });
  if (a.minutes !== null && f.distanceM !== null) {
    const least = leastArrivalMinutes(f.distanceM);
    if (a.minutes < least) return new DomainError('acceptance.arrival-implausible', { minutes: a.minutes, least });
  }
  return null;
}

/** D4.2–6 in their order, D20's plausibility, then the route. Pure. */
export function checkAcceptance(a: AcceptanceRequest, f: AcceptanceCheckFacts): AcceptanceVerdict {
  const refuse = (error: DomainError): AcceptanceVerdict => ({ ok: false, error });
  if (!f.central) return refuse(new DomainError('acceptance.central-not-caller', { nit: a.dniPrestador }));
  if (!f.offer || !f.generator) return refuse(new DomainError('offer.not-found', { uuid: a.offerUuid }));
  if (!f.technician) return refuse(new DomainError('acceptance.technician-not-found', { dni: a.dniTecnico }));
  if (!profileEndpoint({ urlApi: f.generator.urlApi, apiEndpoint: f.generator.apiEndpoint ?? {} }, 'respuesta')) {
    return refuse(new DomainError('acceptance.generator-api-not-found', { generatorId: f.generator.id }));
  }
  const refused = refusal(f.offer.state);
  if (refused) return refuse(refused);
  // the generator's own central (spec 3) knows its generator's offers, open or late: no recipient check
  const own = f.generator.nit !== null && f.central.nit === f.generator.nit;
  const unlikely = implausible(a, f, own);
  if (unlikely) return refuse(unlikely);
  if (f.offer.state === 'SIN_RESPUESTA') return { ok: true, route: 'late' };
  if (own) return { ok: true, route: 'own' };
  return { ok: true, route: 'record' };
}
