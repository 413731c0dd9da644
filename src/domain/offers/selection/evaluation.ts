/**
 * The end of the response window (decisions D2) and of an offer's life
 * (D1: OFFER_MAX_OPEN_MS). Both lock the offer and do nothing unless it is
 * still in the state they act on, so a repeated or late job is harmless.
 *
 * Windows close in batches (issue 12, item 3): the evaluation of one offer
 * also closes every other ABIERTA offer whose deadline has passed and that no
 * one else holds (FOR UPDATE SKIP LOCKED, up to CLOSE_BATCH), with one read
 * of their responses and set-based writes for all of them (closing.ts). When
 * many windows close at once and the jobs queue up, the first job closes what
 * is due and withdraws the jobs of the others it closed (one already running
 * finds its offer closed): the cost per window falls as the load grows, so
 * selection stays punctual. The job's own offer is locked first and waited for (a
 * response being written holds it), the others are only taken when free, so
 * no two batches wait on each other.
 *
 * The evaluation worker's job then stays on as a closing run (ISS32-4,
 * closingRun.ts): the next batches, each at its deadline, without the
 * queue's hop between them, while what followed the previous commit goes on.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Runtime } from '../../ports.js';
import { enqueueAcceptance, resumeAcceptance, sendClaimedAcceptance, SendingClaims } from './acceptanceNotification.js';
import type { Reservation } from '../../ports.js';
import { afterCommit, onCommit } from '../lifecycle/announce.js';
import { publishOfferEvents, type OfferEventOf } from '../lifecycle/events.js';
import { selectionLateness } from '../../../metrics/metrics.js';
import { selectionEvents } from './selection.js';
import { EVALUATION_LEAD_MS, evaluationDueAt, scheduleExpiries } from '../create/schedule.js';
import { closeWindows, lockDueWindows, type ClosedWindow } from './closing.js';
import { expireLocked, lockExpired } from './expiry.js';
import { nextOpenDeadline, offerStateAndUnfinished } from '../../../db/stores/offers.js';
import { untilClock, type ClosingRun } from './closingRun.js';

const ACTOR = 'system:evaluation';
/** the most windows one evaluation closes in one transaction */
export const CLOSE_BATCH = 100;
/** the most offers one expiry job expires in one transaction */
export const EXPIRE_BATCH = 100;

/**
 * ABIERTA → ACEPTADA with the best response, or → SIN_RESPUESTA without any. Returns what happened to `uuid`. With
 * `run` (the evaluation worker's), the job then closes the windows due right after, each batch at its deadline
 * (closingRun.ts, ISS32-4). It returns once what followed every commit has ended.
 */
export async function evaluateOffer(
  rt: Runtime,
  uuid: string,
  run: ClosingRun | null = null,
  opts: { dueOnly?: boolean } = {},
): Promise<'selected' | 'no-response' | 'nothing'> {
  // A window another job's batch closed while this job was already running costs one plain read (no transaction,
  // no lock): its state with, to repair a lost enqueue, its acceptance notification still unsent.
  const seen = await offerStateAndUnfinished(rt.orm.em.fork(), uuid, 'acceptance');
  if (seen?.state !== 'ABIERTA') {
    await resumeAcceptance(rt, uuid, seen?.unfinished ?? []);
    return 'nothing';
  }
  // D2: the queue's job never closes a window before its deadline. Due EVALUATION_LEAD_MS before it (ISS32-11), it
  // waits out the rest here, on this process's clock (a stop does not cut it short: it lasts twice the lead at most);
  // run earlier than that (promoted by hand on the board), it goes back to the queue. A direct call closes at once.
  if (opts.dueOnly && seen.deadlineAt) {
    const deadline = seen.deadlineAt.getTime();
    if (deadline - Date.now() > 2 * EVALUATION_LEAD_MS) throw new NotYetDue(evaluationDueAt(seen.deadlineAt));
    await untilClock(deadline, Date.now, (ms) => sleep(ms, true));
  }
  const tails = new Tails();
  try {
    const now = new Date();
    const { closed } = await closeDueBatch(rt, uuid, now, tails);
    const mine = closed.find((c) => c.uuid === uuid);
    if (!mine) await resumeAcceptance(rt, uuid);
    if (run) {
      const steps = {
        next: (after: Date) => nextOpenDeadline(rt.orm.em.fork(), after),
        close: async (at: Date) => {
          const batch = await closeDueBatch(rt, null, at, tails);
          return { closed: batch.closed.length, next: batch.next };
        },
      };
      await run.run(steps, now).catch((err: unknown) => rt.log.warn({ err }, 'closing run ended by an error; the windows it left keep their own jobs'));
    }
    return mine?.kind ?? 'nothing';
  } finally {
    await tails.settled();
  }
}

/** Thrown by a `dueOnly` evaluation that ran long before its window's deadline: its job is delayed until `at`. */
export class NotYetDue extends Error {
  constructor(readonly at: Date) {
    super(`the window is due at ${at.toISOString()}`);
  }
}

/**
 * What follows the commits of a job's batches: waited for together, at the job's end. Each step logs its own failure
 * (afterCommit, publishOfferEvents), so none is left to reject here.
 */
class Tails {
  private readonly running = new Set<Promise<unknown>>();

  add(work: Promise<unknown>): void {
    const tracked: Promise<unknown> = work.catch(() => undefined).finally(() => this.running.delete(tracked));
    this.running.add(tracked);
  }

  async settled(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running]);
  }
}

/**
 * One transaction: the own window (when there is one, waited for) and the others due at `now` that nobody holds,
 * closed (closing.ts). After its commit the 6.1 sends this process holds places for start at once; their claims, the other
 * 6.1 enqueues, the expiries of the unanswered, the live events and the withdrawal of the other windows' jobs go to
 * `tails`, so a closing run's next batch need not wait for them. The moves' own announcements (`offer.state`, the
 * state notifications) run on commit, before the live events of the selections. Without an own window (a run's
 * batch), it also returns when the next window after `now` is due, read with its windows (ISS32-13).
 */
async function closeDueBatch(rt: Runtime, ownUuid: string | null, now: Date, tails: Tails): Promise<{ closed: ClosedWindow[]; next?: Date | null }> {
  // A 6.1 this process will send right after the commit has a place held before the write; it is claimed just before
  // its request goes out (one statement for the batch's: SendingClaims). Places the commit's step does not start (the
  // transaction failed) are released.
  const places = new Map<string, Reservation>();
  const claimNow = (deliveryId: string) => {
    const place = rt.acceptanceSends?.reserve(deliveryId);
    if (place) places.set(deliveryId, place);
    return Boolean(place);
  };
  let closed: ClosedWindow[];
  /** without an own offer: when the next window is due, read with the batch's (ISS32-13) */
  let next: Date | null | undefined;
  try {
    closed = await rt.orm.em.fork().transactional(async (em) => {
      const locked = await lockDueWindows(em, ownUuid, CLOSE_BATCH - (ownUuid ? 1 : 0), now);
      const { windows } = locked;
      next = locked.next;
      if (!windows.length) return [];
      let batch: ClosedWindow[] = [];
      // After the commit, first the acceptance notifications (6.1: started from here when a place is held, else
      // enqueued) and the expiries of the unanswered (both left running in `tails`), then the moves' own
      // announcements (declared by closeWindows, after this step). A lost expiry enqueue is the sweeper's once the
      // offer is overdue.
      onCommit(em, async () => {
        const claims = new SendingClaims(rt);
        const unanswered = batch.filter((c) => c.kind !== 'selected');
        for (const c of batch) {
          if (c.kind !== 'selected') continue;
          const { claimed } = c;
          // started now, while its place is held (the `finally` below releases the places not started)
          if (claimed) sendClaimedAcceptance(rt, places.get(claimed.id)!, claimed, claims);
          else if (c.selection.deliveryId) {
            const deliveryId = c.selection.deliveryId;
            tails.add(afterCommit(rt, 'enqueue acceptance notification', { deliveryId }, () => enqueueAcceptance(rt, deliveryId)));
          }
        }
        // the expiries of the unanswered in one round trip
        if (unanswered.length) tails.add(afterCommit(rt, 'enqueue expiries', { count: unanswered.length }, () => scheduleExpiries(rt, unanswered)));
      });
      batch = await closeWindows(em, rt.config, windows, ACTOR, claimNow);
      return batch;
    });
  } finally {
    for (const place of places.values()) place.release();
  }
  // the live events of every window closed, in one round trip (each offer's `offer.state` went before, on commit)
  const events: OfferEventOf[] = [];
  for (const c of closed) {
    if (c.kind === 'selected') {
      // D19: deadline → selection committed (the transaction above has committed)
      if (c.deadlineAt) selectionLateness.observe(Math.max(0, Date.now() - c.deadlineAt.getTime()) / 1000);
      events.push(...selectionEvents(c.selection, 'selected'));
    } else {
      events.push({ offer: c.ref, event: 'offer.closed', data: { result: 'no-response' } });
    }
  }
  if (events.length) tails.add(publishOfferEvents(rt, events));
  // The evaluation jobs of the other windows this batch closed would only find them closed: withdrawn (a job
  // already running is left to end on its own; a lost 6.1 enqueue they used to repair is the sweeper's).
  const othersClosed = closed.filter((c) => c.uuid !== ownUuid).map((c) => ({ offerUuid: c.uuid }));
  if (othersClosed.length) {
    tails.add(afterCommit(rt, "withdraw closed windows' evaluations", { count: othersClosed.length }, () => rt.queues.withdraw('offer-evaluation', 'evaluate', othersClosed)));
  }
  return { closed, next };
}

/**
 * SIN_RESPUESTA → EXPIRADA; anything else stays as it is. Also expires every
 * other unanswered offer past its expiry that nobody holds (up to
 * EXPIRE_BATCH, expiry.ts) and withdraws their jobs, as the evaluation does
 * for windows. Returns whether `uuid` expired.
 */
export async function expireOffer(rt: Runtime, uuid: string): Promise<boolean> {
  const expired = await rt.orm.em.fork().transactional(async (em) => {
    const offers = await lockExpired(em, uuid, EXPIRE_BATCH - 1, new Date());
    await expireLocked(em, offers, 'system:expiry');
    return offers.map((o) => o.uuid);
  });
  const others = expired.filter((u) => u !== uuid).map((offerUuid) => ({ offerUuid }));
  if (others.length) {
    await afterCommit(rt, "withdraw expired offers' jobs", { count: others.length }, () => rt.queues.withdraw('offer-expiry', 'expire', others));
  }
  if (!expired.includes(uuid)) {
    await resumeAcceptance(rt, uuid);
    return false;
  }
  return true;
}
