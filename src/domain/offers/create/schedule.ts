/**
 * The jobs of an open offer (STYLE 5, 6): distribution now and evaluation at
 * the deadline, due a little before it (ISS32-11); their ids, attempts and
 * backoff are the registry's (src/queues/registry.ts). Job ids derive from
 * the uuid, so scheduling an offer again (a retried POST /oferta) is harmless
 * and repairs an offer whose first enqueue failed after its commit.
 *
 * The expiry (OFFER_MAX_OPEN_MS after creation) acts only on an offer whose
 * window closed unanswered, so it is enqueued when that happens
 * (scheduleExpiries, from the evaluation; queue offer-expiry), not with every offer: POST /oferta
 * adds two jobs, not three (issue 12, item 1). A lost expiry enqueue is
 * repaired by the outbox sweeper once the offer is overdue.
 */
import type { Offer } from '../../../db/entities/index.js';
import type { Runtime } from '../../ports.js';

const after = (at: Date | null | undefined, now: Date) => Math.max(0, (at ?? now).getTime() - now.getTime());

/**
 * ISS32-11: an evaluation job is due this long before its window's deadline, and its process waits out the rest on
 * its own clock (evaluation.ts). So the deadline is timed by that clock to the millisecond, not by the queue's
 * promotion of the delayed job (as precise as Redis's `hz`: 10 ms at our `hz 100`, 100 ms at Redis's default), its
 * fetch and the job's first read, which under a busy Redis and PostgreSQL came 20–30 ms after the deadline. Bounded,
 * so that a job holds the evaluation's one slot only briefly before its window is due.
 */
export const EVALUATION_LEAD_MS = 100;

/** When the evaluation job of a window closing at `deadlineAt` is due: EVALUATION_LEAD_MS before it. */
export function evaluationDueAt(deadlineAt: Date): Date {
  return new Date(deadlineAt.getTime() - EVALUATION_LEAD_MS);
}

export async function scheduleOfferJobs(rt: Runtime, offer: Pick<Offer, 'uuid' | 'deadlineAt'>): Promise<void> {
  await scheduleManyOfferJobs(rt, [offer]);
}

/** `scheduleOfferJobs` for several offers: two round trips (one per queue) however many. */
export async function scheduleManyOfferJobs(rt: Runtime, offers: ReadonlyArray<Pick<Offer, 'uuid' | 'deadlineAt'>>): Promise<void> {
  // The delay counts from now, not from the offer's creation: under load the commit and this enqueue come some
  // time after createdAt, and a delay measured from it would fire the evaluation that much after the deadline.
  const now = new Date();
  await Promise.all([
    rt.queues.addMany('offer-distribution', 'distribute', offers.map((o) => ({ data: { offerUuid: o.uuid } }))),
    rt.queues.addMany('offer-evaluation', 'evaluate', offers.map((o) => ({ data: { offerUuid: o.uuid }, delay: after(o.deadlineAt && evaluationDueAt(o.deadlineAt), now) }))),
  ]);
}

/** The expiry jobs of offers that went SIN_RESPUESTA (a closing batch), each due at its `expiresAt`, in one round trip. */
export async function scheduleExpiries(rt: Runtime, offers: ReadonlyArray<Pick<Offer, 'uuid' | 'expiresAt'>>, now = new Date()): Promise<void> {
  await rt.queues.addMany('offer-expiry', 'expire', offers.map((o) => ({ data: { offerUuid: o.uuid }, delay: after(o.expiresAt, now) })));
}
