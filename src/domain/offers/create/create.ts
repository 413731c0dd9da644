/**
 * POST /oferta (spec 2.1, 4.1, decisions D3): an offer is stored ABIERTA with
 * its deadline and audit row (one statement, see store.ts), committed, and
 * only then are its jobs enqueued. A uuid that already exists (also when
 * twenty requests race for it: the primary key decides) is answered per D3
 * without revealing another generator's offer.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Offer, type ApiUser } from '../../../db/entities/index.js';
import { DomainError } from '../../errors.js';
import type { Runtime } from '../../../main/runtime.js';
import { afterCommit } from '../lifecycle/announce.js';
import { publishOfferEvent } from '../lifecycle/events.js';
import { draftOffer, type OfferDraft, type OfferInput } from './input.js';
import { offerResponses, type ResponseView } from '../acceptance/responses.js';
import { prepareOffer } from './prepare.js';
import { scheduleOfferJobs } from './schedule.js';
import { insertOffer } from './store.js';

export type CreateOutcome =
  | { kind: 'created'; uuid: string }
  /** the same generator's offer is still ABIERTA: its responses so far */
  | { kind: 'processing'; uuid: string; offersResponses: ResponseView[] };

export async function createOffer(rt: Runtime, generator: ApiUser, input: OfferInput): Promise<CreateOutcome> {
  const draft = draftOffer(input);
  const em = rt.orm.em.fork();
  // A repeated uuid is answered before any address is geocoded (a geocoder call may cost money);
  // without addresses the insert alone decides, saving this lookup on the hot path.
  if (needsGeocoding(draft) && (await em.count(Offer, { uuid: draft.uuid })) > 0) return answerDuplicate(rt, em, generator, draft);
  const prepared = await prepareOffer(rt, generator, draft);
  const created = prepared.createdAt.getTime();
  const offer = {
    ...prepared,
    deadlineAt: new Date(created + rt.config.offerResponseWindowMs),
    expiresAt: new Date(created + rt.config.offerMaxOpenMs),
  };
  const inserted = await insertOffer(em, offer, { by: 'oferta', actor: `api-user:${generator.username}` });
  if (inserted === 'unknown-type') throw new DomainError('offer.type-unknown', { serviceTypeId: draft.serviceTypeId });
  if (inserted === 'uuid-exists') return answerDuplicate(rt, em, generator, draft);
  await afterCommit(rt, 'schedule offer jobs', { uuid: offer.uuid }, () => scheduleOfferJobs(rt, offer));
  if (draft.socketId) await subscribeSocket(rt, { uuid: offer.uuid, generatorId: generator.id }, draft.socketId);
  return { kind: 'created', uuid: offer.uuid };
}

function needsGeocoding(draft: OfferDraft): boolean {
  return !draft.origin || (!draft.destination && Boolean(draft.direccionDestino));
}

/** D3: the same generator's ABIERTA offer answers with its responses; anything else is refused. */
async function answerDuplicate(rt: Runtime, em: EntityManager, generator: ApiUser, draft: OfferDraft): Promise<CreateOutcome> {
  const existing = await em.findOne(Offer, { uuid: draft.uuid });
  if (!existing || existing.generator.id !== generator.id || existing.state !== 'ABIERTA') {
    throw new DomainError('offer.uuid-exists', { uuid: draft.uuid });
  }
  // Re-adding the jobs is harmless (same ids) and repairs an offer whose first enqueue failed.
  await afterCommit(rt, 'schedule offer jobs', { uuid: existing.uuid }, () => scheduleOfferJobs(rt, existing));
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
