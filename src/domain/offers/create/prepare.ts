/**
 * From a drafted 2.1 body to the row of a new offer, the same for POST /oferta
 * and POST /asignacion-directa: where it takes place (given coordinates win;
 * otherwise the addresses are geocoded, D9), who offers it and when it is
 * scheduled, created now. What differs (window, assignment) the caller adds.
 */
import { geocode } from '../../geocode.js';
import type { ApiUser } from '../../../db/entities/index.js';
import { DomainError } from '../../errors.js';
import type { Runtime } from '../../ports.js';
import type { OfferDraft } from './input.js';
import type { NewOffer } from './write.js';

export type PreparedOffer = Omit<NewOffer, 'deadlineAt' | 'expiresAt' | 'assignment'>;

export async function prepareOffer(
  rt: Pick<Runtime, 'geocoder'>,
  generator: Pick<ApiUser, 'id' | 'businessName'>,
  draft: OfferDraft,
): Promise<PreparedOffer> {
  // A geocoded origin names its city and department; the body's values are kept where it does not.
  const origin = draft.origin
    ? { ...draft.origin, ciudad: draft.ciudad, departamento: draft.departamento }
    : await geocodeOrFail(rt, draft.direccionOrigen ?? '', 'origin').then((hit) => ({
        ...hit,
        ciudad: hit.ciudad ?? draft.ciudad,
        departamento: hit.departamento ?? draft.departamento,
      }));
  const destination =
    draft.destination ??
    (draft.direccionDestino ? await geocodeOrFail(rt, draft.direccionDestino, 'destination') : null);
  // Created once located: a slow geocoder does not eat into the response window.
  const createdAt = new Date();
  return {
    ...draft,
    generatorId: generator.id,
    createdAt,
    origin: { lat: origin.lat, lng: origin.lng },
    ciudad: origin.ciudad,
    departamento: origin.departamento,
    destination: destination && { lat: destination.lat, lng: destination.lng },
    scheduledAt: draft.scheduledAt ?? createdAt,
    ofertante: ofertante(generator, draft),
  };
}

/** `Ofertante - Subofertante`, the offerer defaulting to the credential's business name (spec 2.1). */
function ofertante(generator: Pick<ApiUser, 'businessName'>, draft: OfferDraft): string {
  const base = draft.ofertante ?? generator.businessName;
  return (draft.subOfertante ? `${base} - ${draft.subOfertante}` : base).slice(0, 255);
}

async function geocodeOrFail(rt: Pick<Runtime, 'geocoder'>, address: string, which: 'origin' | 'destination') {
  const hit = await geocode(rt, address);
  if (!hit) throw new DomainError('offer.address-not-found', { which });
  return hit;
}
