/**
 * The outgoing acceptance notification (spec 6.1, decisions D5): planned as a
 * pending delivery in the selection's transaction, sent once by whoever
 * claims it (the webhook-dispatch job, or PUT /aceptacion for a late
 * acceptance), and a rejection (anything but 200, a timeout, no connection)
 * makes the offer INACTIVA.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../../../config/index.js';
import type { ApiUser, Offer, OfferResponse } from '../../../db/entities/index.js';
import type { Reservation } from '../../ports.js';
import type { Runtime } from '../../ports.js';
import { claimPending, createDelivery, loadDelivery, markSending, unfinishedOf, type ClaimedDelivery } from '../../../db/stores/deliveries.js';
import { AttemptRecords, attemptDelivery, failAbandoned, profileEndpoint } from '../../../webhooks/dispatch.js';
import type { WebhookOutcome } from '../../../webhooks/send.js';
import { acceptancePayload, type AcceptanceFacts } from './acceptancePayload.js';
import { lockOffer } from '../lifecycle/stateMachine.js';
import { transition } from '../lifecycle/moves.js';

/** What is stored as "the peer never answered" when a claimed delivery is found abandoned. */
export const ABANDONED_ERROR = 'no answer recorded: the sender stopped while waiting for the reply';

/** What a selection's acceptance notification needs of the chosen response. */
export type ChosenResponse = Pick<OfferResponse, 'techLat' | 'techLng' | 'timeMin'> & {
  central: AcceptanceFacts['central'];
  technician: AcceptanceFacts['technician'];
};

/**
 * The acceptance notification of a selection: where it goes, its body and its
 * event id (one per offer, derived from the uuid). Null when the generator has
 * no endpoint for it. Pure: the unit of work (planAcceptanceNotification) and
 * a batch of closing windows (closing.ts) plan the same delivery.
 */
export function acceptanceNotice(
  cfg: Config,
  offer: Pick<Offer, 'uuid' | 'codigoServicio'>,
  generator: Pick<ApiUser, 'urlApi' | 'apiEndpoint'>,
  response: ChosenResponse,
): { url: string; body: Record<string, unknown>; eventId: string } | null {
  const url = profileEndpoint(generator, 'respuesta');
  if (!url) return null;
  const body: Record<string, unknown> = acceptancePayload(cfg, {
    offerUuid: offer.uuid,
    central: response.central,
    technician: response.technician,
    techLat: response.techLat ?? null,
    techLng: response.techLng ?? null,
    timeMin: response.timeMin,
  });
  // D16: an own-central acceptance assigns at once, so its notification carries the service's code.
  if (offer.codigoServicio) body.codigoServicio = offer.codigoServicio;
  return { url, body, eventId: `acceptance-${offer.uuid}` };
}

/**
 * In the selection's transaction: the pending delivery of the notification.
 * Null when the generator has no endpoint for it.
 */
export function planAcceptanceNotification(
  em: EntityManager,
  cfg: Config,
  offer: Offer,
  generator: ApiUser,
  response: OfferResponse,
): string | null {
  const notice = acceptanceNotice(cfg, offer, generator, response);
  if (!notice) return null;
  return createDelivery(em, { offer, kind: 'acceptance', receiver: generator, ...notice, eventHeader: false }).id;
}

/** After commit: the job that sends it (one attempt, STYLE 5 id: the registry's options). */
export async function enqueueAcceptance(rt: Runtime, deliveryId: string): Promise<void> {
  await rt.queues.add('webhook-dispatch', 'deliver', { deliveryId });
}

/**
 * The claims of the 6.1 a closing batch sends itself (sendClaimedAcceptance):
 * each send asks for its own claim just before its request goes out, and the
 * claims asked for in the same turn of the event loop (a batch's sends all
 * start together) are made in one statement (markSending). A row is thus
 * 'sending' only once its request is about to be on the wire: a process
 * killed before that leaves it pending, and whoever recovers it sends it
 * (issue 30, item 7); one killed after it loses only what it had on the
 * wire, which D5 settles as unanswered.
 */
export class SendingClaims {
  private asked: Array<{ id: string; resolve: (claimed: boolean) => void; reject: (err: unknown) => void }> = [];

  constructor(private readonly rt: Pick<Runtime, 'orm'>) {}

  /** Resolves true when this caller now holds the claim of `id` (false: someone else sent it). */
  claim(id: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      if (!this.asked.length) setImmediate(() => this.flush());
      this.asked.push({ id, resolve, reject });
    });
  }

  private flush(): void {
    const asked = this.asked;
    this.asked = [];
    Promise.resolve()
      .then(() => markSending(this.rt.orm.em.fork(), asked.map((a) => a.id)))
      .then(
        (ids) => {
          const claimed = new Set(ids);
          for (const a of asked) a.resolve(claimed.has(a.id));
        },
        (err: unknown) => {
          for (const a of asked) a.reject(err);
        },
      );
  }
}

/**
 * After the commit of a closing batch that planned the 6.1 for this process
 * (`rt.acceptanceSends`, where the batch held `place` before writing it):
 * sent from here at once, without the queue's hop, which under load was most
 * of the time between the selection and the generator's request (issue 12,
 * item 3). It is claimed (`claims`, one statement for the batch's sends)
 * just before its request goes out, so it is still sent once: a row someone
 * else claimed first is left to them. A send that fails before its claim
 * (PostgreSQL away) goes to the queue unclaimed, whose job sends it; one that
 * fails after its claim, before its answer is recorded, goes to the queue
 * too, whose job settles the claim as unanswered once the webhook timeout has
 * passed (D5: it may have gone out); so does a process that dies while
 * sending, through the outbox sweeper.
 */
export function sendClaimedAcceptance(rt: Runtime, place: Reservation, delivery: ClaimedDelivery, claims: SendingClaims = new SendingClaims(rt)): void {
  place.start(async () => {
    try {
      if (!(await claims.claim(delivery.id))) return;
      await sendClaimed(rt, rt.orm.em.fork(), delivery);
    } catch (err) {
      rt.log.warn({ err, deliveryId: delivery.id }, 'acceptance notification not recorded by the selecting process; enqueued');
      await enqueueAcceptance(rt, delivery.id);
    }
  });
}

/**
 * Sends the notification of a pending delivery, once: the delivery is claimed
 * (pending → sending) before anything goes out, so a second job, a re-run
 * after a crash or a concurrent caller sends nothing. Returns what the
 * generator answered (`ok`: it accepted, with a 200 recorded in time), or
 * null when this caller did not send. A delivery found
 * claimed but never answered is failed once the webhook timeout has passed
 * (its sender died waiting) and its offer becomes INACTIVA.
 */
export async function dispatchAcceptance(rt: Runtime, deliveryId: string): Promise<WebhookOutcome | null> {
  const em = rt.orm.em.fork();
  const delivery = await claimPending(em, deliveryId);
  if (!delivery) {
    // claimed by a sender that died while waiting: failed once its timeout has passed
    const state = await failAbandoned(em, deliveryId, rt.config.webhookTimeoutMs, ABANDONED_ERROR);
    if (state === 'failed') await rejectSelection(rt, em, deliveryId);
    return null;
  }
  return sendClaimed(rt, em, delivery);
}

const recordsOf = new WeakMap<Pick<Runtime, 'orm'>, AttemptRecords>();

/** The process's 6.1 answers are recorded together when they come back together (a closing batch's, issue 32). */
function acceptanceRecords(rt: Pick<Runtime, 'orm'>): AttemptRecords {
  let records = recordsOf.get(rt);
  if (!records) recordsOf.set(rt, (records = new AttemptRecords(() => rt.orm.em.fork())));
  return records;
}

/** One attempt at a claimed 6.1: only a 200 accepts, so anything else is final and rejects the selection. */
async function sendClaimed(rt: Runtime, em: EntityManager, delivery: ClaimedDelivery): Promise<WebhookOutcome> {
  const sent = await attemptDelivery(em, delivery, rt.config, (o) => (o.statusCode === 200 ? 'ok' : 'failed'), 'system', acceptanceRecords(rt));
  const accepted = sent.recorded && sent.verdict === 'ok';
  if (!accepted) await rejectSelection(rt, em, delivery.id);
  return { ...sent.outcome, ok: accepted };
}

/**
 * The generator rejected the selection: ACEPTADA (or ASIGNADA by its own
 * central) → INACTIVA. Idempotent: an offer already moved on is left alone.
 */
async function rejectSelection(rt: Runtime, em: EntityManager, deliveryId: string): Promise<void> {
  const delivery = await loadDelivery(em, deliveryId);
  const uuid = delivery?.offer?.uuid;
  if (!uuid) return;
  const moved = await em.fork().transactional(async (tx) => {
    const offer = await lockOffer(tx, uuid);
    if (!offer) return null;
    await tx.populate(offer, ['generator', 'assignedCentral']);
    const ownAssignment = offer.state === 'ASIGNADA' && offer.assignedCentral?.nit === offer.generator.nit;
    if (offer.state !== 'ACEPTADA' && !ownAssignment) return null;
    await transition(tx, offer, {
      to: 'INACTIVA',
      by: 'webhook-rechazado',
      actor: 'system:webhook-dispatch',
      detail: { deliveryId, statusCode: delivery.statusCode ?? null, error: delivery.error ?? null },
    });
    return true;
  });
  if (moved) rt.log.info({ uuid, deliveryId }, 'selection rejected by the generator: INACTIVA');
}

/**
 * Re-enqueues the acceptance notification of an offer when it is still
 * pending or claimed-but-unanswered (a process died between commit and
 * enqueue, or while sending). Harmless otherwise: the job id is the same and
 * the claim decides. One this process is sending right now is left to it.
 * `unfinished`: the offer's unfinished acceptance deliveries when the caller
 * has just read them (offerStateAndUnfinished); read here otherwise.
 */
export async function resumeAcceptance(rt: Runtime, offerUuid: string, unfinished?: readonly string[]): Promise<void> {
  for (const id of unfinished ?? (await unfinishedOf(rt.orm.em.fork(), offerUuid, 'acceptance'))) {
    if (!rt.acceptanceSends?.has(id)) await enqueueAcceptance(rt, id);
  }
}
