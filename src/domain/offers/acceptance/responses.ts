/**
 * Responses as generators see them (spec 2.3): GET /offer-responses, the
 * duplicate-uuid answer of POST /oferta and the live events.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Offer, OfferResponse } from '../../../db/entities/index.js';
import { DomainError } from '../../errors.js';
import { rankResponses } from '../selection/ranking.js';
import { UUID_RE } from '../create/input.js';

export interface ResponseView {
  /** km from the technician to the service point */
  distance: number;
  techCoords: { latitud: string; longitud: string };
  tech_names: string;
  /** minutes */
  time: number;
  rate: number;
}

export interface OfferResponsesView {
  responses: ResponseView[];
  accepted: ResponseView | null;
}

/** A stored response, or one just written with its figures (PUT /aceptacion's quick path), as spec 2.3 shows it. */
export type ResponseFacts = Pick<OfferResponse, 'distanceKm' | 'techLat' | 'techLng' | 'timeMin' | 'rate'> & { technician: { names: string } };

export function responseView(r: ResponseFacts): ResponseView {
  return {
    distance: r.distanceKm,
    techCoords: { latitud: r.techLat === null ? '' : String(r.techLat), longitud: r.techLng === null ? '' : String(r.techLng) },
    tech_names: r.technician.names,
    time: r.timeMin,
    rate: r.rate,
  };
}

/**
 * Before a selection: every response so far, best first (D2 order), and no
 * accepted one. Once a response was selected (whatever happened next): no
 * responses and the selected one as `accepted`.
 */
export async function offerResponses(em: EntityManager, offer: Pick<Offer, 'uuid' | 'acceptedResponse'>): Promise<OfferResponsesView> {
  const where = offer.acceptedResponse === null ? { offer: offer.uuid } : { offer: offer.uuid, id: offer.acceptedResponse };
  const rows = await em.find(OfferResponse, where, { populate: ['technician'] });
  if (offer.acceptedResponse !== null) return { responses: [], accepted: rows[0] ? responseView(rows[0]) : null };
  return { responses: rankResponses(rows).map(responseView), accepted: null };
}

/** GET /offer-responses (spec 4.2): only the caller's own offers; any other uuid (or text that is no uuid) is "not found" (D3). */
export async function getOfferResponses(em: EntityManager, generatorId: number, given: string): Promise<OfferResponsesView> {
  const uuid = given.trim().toLowerCase();
  // A uuid that cannot exist is simply not found.
  if (!UUID_RE.test(uuid)) throw new DomainError('offer.not-found', { uuid });
  const offer = await em.findOne(Offer, { uuid, generator: generatorId }, { fields: ['uuid', 'acceptedResponse'] });
  if (!offer) throw new DomainError('offer.not-found', { uuid });
  return offerResponses(em, offer);
}
