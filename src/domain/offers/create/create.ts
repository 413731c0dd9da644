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
import type { Runtime } from '../../ports.js';
import { afterCommit } from '../lifecycle/announce.js';
import { publishOfferEvent } from '../lifecycle/events.js';
import { draftOffer, type OfferDraft, type OfferInput } from './input.js';
import { offerResponses, type ResponseView } from '../acceptance/responses.js';
import { prepareOffer } from './prepare.js';
import { scheduleManyOfferJobs, scheduleOfferJobs } from './schedule.js';
import { setOfferSocket } from '../../../db/stores/offers.js';
import { insertOffers, type InsertResult, type NewOffer, type OfferWrite } from './write.js';
import { Coalescer, orOneByOne } from '../../../db/coalesce.js';

export type CreateOutcome =
  | { kind: 'created'; uuid: string }
  /** the same generator's offer is still ABIERTA: its responses so far */
  | { kind: 'processing'; uuid: string; offersResponses: ResponseView[] };

export async function createOffer(rt: Runtime, generator: ApiUser, input: OfferInput): Promise<CreateOutcome> {
  const draft = draftOffer(input);
  // A repeated uuid is answered before any address is geocoded (a geocoder call may cost money);
  // without addresses the insert alone decides, saving this lookup (and its EntityManager) on the hot path.
  if (needsGeocoding(draft)) {
    const em = rt.orm.em.fork();
    if ((await em.count(Offer, { uuid: draft.uuid })) > 0) return answerDuplicate(rt, em, generator, draft);
  }
  const prepared = await prepareOffer(rt, generator, draft);
  const created = prepared.createdAt.getTime();
  const offer = {
    ...prepared,
    deadlineAt: new Date(created + rt.config.offerResponseWindowMs),
    expiresAt: new Date(created + rt.config.offerMaxOpenMs),
  };
  const writes = offerWrites(rt);
  const inserted = await writes.inserts.submit({ offer, creation: { by: 'oferta', actor: `api-user:${generator.username}` } });
  if (inserted === 'unknown-type') throw new DomainError('offer.type-unknown', { serviceTypeId: draft.serviceTypeId });
  if (inserted === 'uuid-exists') return answerDuplicate(rt, rt.orm.em.fork(), generator, draft);
  await afterCommit(rt, 'schedule offer jobs', { uuid: offer.uuid }, () => writes.schedules.submit(offer));
  if (draft.socketId) await subscribeSocket(rt, { uuid: offer.uuid, generatorId: generator.id }, draft.socketId);
  return { kind: 'created', uuid: offer.uuid };
}

/**
 * The writes of POST /oferta, made together for concurrent requests (issue 12, item 1): their offers in one INSERT,
 * then their jobs in one pipeline per queue. An INSERT that fails for a batch is tried again offer by offer, so one
 * offer PostgreSQL refuses fails only its own request. Each request is still answered only after its offer committed
 * and its jobs were added (or their failure logged for the outbox sweeper), as when it wrote alone.
 */
interface OfferWrites {
  inserts: Coalescer<OfferWrite, InsertResult>;
  schedules: Coalescer<NewOffer, undefined>;
}

/**
 * One INSERT (and one enqueue) in flight per process: the requests that arrive while it runs go together in the next,
 * so under a burst each round trip carries as many offers as came in meanwhile (ISS32-15). Alone, a request waits for
 * nothing; the most it waits is the round trip before its own.
 */
const WRITE_BATCH = { max: 64, concurrency: 1 };
const writesOf = new WeakMap<Runtime, OfferWrites>();

function offerWrites(rt: Runtime): OfferWrites {
  const known = writesOf.get(rt);
  if (known) return known;
  const w: OfferWrites = {
    inserts: new Coalescer(
      orOneByOne((batch: OfferWrite[]) => insertOffers(rt.orm.em.fork(), batch)),
      WRITE_BATCH,
    ),
    schedules: new Coalescer<NewOffer, undefined>(async (batch) => {
      await scheduleManyOfferJobs(rt, batch);
      return batch.map(() => undefined);
    }, WRITE_BATCH),
  };
  writesOf.set(rt, w);
  return w;
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
    await setOfferSocket(em, existing.uuid, draft.socketId);
    await subscribeSocket(rt, { uuid: existing.uuid, generatorId: generator.id }, draft.socketId);
  }
  const { responses } = await offerResponses(em, existing);
  return { kind: 'processing', uuid: existing.uuid, offersResponses: responses };
}

/** Asks the socket servers to add this socket to the offer's live events (D3, D10). */
async function subscribeSocket(rt: Runtime, offer: { uuid: string; generatorId: number }, socketId: string): Promise<void> {
  await publishOfferEvent(rt, offer, 'offer.subscribe', { socketId });
}
