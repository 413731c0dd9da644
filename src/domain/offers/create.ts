/**
 * POST /oferta (spec 2.1, 4.1, decisions D3): an offer is stored ABIERTA with
 * its deadline and audit row (one statement, see store.ts), committed, and
 * only then are its jobs enqueued. A uuid that already exists (also when
 * twenty requests race for it: the primary key decides) is answered per D3
 * without revealing another generator's offer.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Offer, type ApiUser } from '../../db/entities/index.js';
import { controllerError } from '../../http/errors.js';
import type { Runtime } from '../../main/runtime.js';
import { publishOfferEvent } from './events.js';
import { OFFER_MESSAGES, draftOffer, type OfferDraft, type OfferInput } from './input.js';
import { offerResponses, type ResponseView } from './responses.js';
import { scheduleOfferJobs } from './schedule.js';
import { insertOffer } from './store.js';

export const DEFAULT_DESCRIPTION = 'SERVICIO NO ESPECIFICADO';

export type CreateOutcome =
  | { kind: 'created'; uuid: string }
  /** the same generator's offer is still ABIERTA: its responses so far */
  | { kind: 'processing'; uuid: string; offersResponses: ResponseView[] };

export async function createOffer(rt: Runtime, generator: ApiUser, input: OfferInput): Promise<CreateOutcome> {
  const draft = draftOffer(input);
  // A geocoded origin names its city and department; the body's values are kept where it does not.
  const origin = draft.origin
    ? { ...draft.origin, ciudad: draft.ciudad, departamento: draft.departamento }
    : await geocodeOrFail(rt, draft.direccionOrigen ?? '', OFFER_MESSAGES.originNotFound).then((hit) => ({
        ...hit,
        ciudad: hit.ciudad ?? draft.ciudad,
        departamento: hit.departamento ?? draft.departamento,
      }));
  const destination =
    draft.destination ??
    (draft.direccionDestino ? await geocodeOrFail(rt, draft.direccionDestino, OFFER_MESSAGES.destinationNotFound) : null);

  const createdAt = new Date();
  const offer = {
    ...draft,
    generatorId: generator.id,
    createdAt,
    deadlineAt: new Date(createdAt.getTime() + rt.config.offerResponseWindowMs),
    expiresAt: new Date(createdAt.getTime() + rt.config.offerMaxOpenMs),
    origin: { lat: origin.lat, lng: origin.lng },
    ciudad: origin.ciudad,
    departamento: origin.departamento,
    destination: destination && { lat: destination.lat, lng: destination.lng },
    scheduledAt: draft.scheduledAt ?? createdAt,
    ofertante: ofertante(generator, draft),
  };
  const em = rt.orm.em.fork();
  const inserted = await insertOffer(em, offer, `api-user:${generator.username}`, DEFAULT_DESCRIPTION);
  if (inserted === 'unknown-type') throw controllerError(400, OFFER_MESSAGES.typeUnknown(draft.serviceTypeId));
  if (inserted === 'uuid-exists') return answerDuplicate(rt, em, generator, draft);
  await scheduleOfferJobs(rt, offer);
  if (draft.socketId) await subscribeSocket(rt, { uuid: offer.uuid, generatorId: generator.id }, draft.socketId);
  return { kind: 'created', uuid: offer.uuid };
}

/** `Ofertante - Subofertante`, the offerer defaulting to the credential's business name (spec 2.1). */
function ofertante(generator: ApiUser, draft: OfferDraft): string {
  const base = draft.ofertante ?? generator.businessName;
  return (draft.subOfertante ? `${base} - ${draft.subOfertante}` : base).slice(0, 255);
}

async function geocodeOrFail(rt: Runtime, address: string, message: string) {
  const hit = await rt.geocoder.geocode(address);
  if (!hit) throw controllerError(400, message);
  return hit;
}

/** D3: the same generator's ABIERTA offer answers with its responses; anything else is refused. */
async function answerDuplicate(rt: Runtime, em: EntityManager, generator: ApiUser, draft: OfferDraft): Promise<CreateOutcome> {
  const existing = await em.findOne(Offer, { uuid: draft.uuid });
  if (!existing || existing.generator.id !== generator.id || existing.state !== 'ABIERTA') {
    throw controllerError(400, OFFER_MESSAGES.alreadyOffered);
  }
  // Re-adding the jobs is harmless (same ids) and repairs an offer whose first enqueue failed.
  await scheduleOfferJobs(rt, existing, new Date());
  if (draft.socketId) {
    await em.nativeUpdate(Offer, { uuid: existing.uuid }, { socketId: draft.socketId });
    await subscribeSocket(rt, { uuid: existing.uuid, generatorId: generator.id }, draft.socketId);
  }
  const { responses } = await offerResponses(em, existing);
  return { kind: 'processing', uuid: existing.uuid, offersResponses: responses };
}

/** Asks the socket servers to add this socket to the offer's live events (D3, D10). */
async function subscribeSocket(rt: Runtime, offer: { uuid: string; generatorId: number }, socketId: string): Promise<void> {
  await publishOfferEvent(rt, offer, 'offer.subscribe', { socketId });
}
