/**
 * D4's checks of PUT /aceptacion after the body (D4.2–6), as one pure function
 * of the facts read, whichever way they were read: the quick path reads them
 * in one statement, the transactional path through the entities
 * (acceptance.ts); both decide with `checkAcceptance`, and
 * test/offers/acceptanceChecks.test.ts feeds both the same cases. The body and
 * its coordinates (D4.1) are checked before (parseAcceptance), and the
 * technician's position after (responseFigures, src/geo/figures.ts), by both
 * paths alike.
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
  /** the technician `dniTecnico` of that central */
  technician: { id: number } | null;
}

/** What the request names. */
export interface AcceptanceRequest {
  offerUuid: string;
  dniPrestador: string;
  dniTecnico: string;
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

/** D4.2–6 in their order, then the route. Pure. */
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
  if (f.offer.state === 'SIN_RESPUESTA') return { ok: true, route: 'late' };
  if (f.generator.nit !== null && f.central.nit === f.generator.nit) return { ok: true, route: 'own' };
  return { ok: true, route: 'record' };
}
