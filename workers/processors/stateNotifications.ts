/**
 * state-notification/notify: one try of a delivery (D12). A failed try is
 * thrown so BullMQ backs off exponentially; a Retry-After, or an earlier
 * delivery to the same receiver still unfinished, moves the job to delayed
 * instead (not counted as a BullMQ attempt; the row counts every try). A
 * finished delivery wakes the next one to the same receiver.
 * state-notification/sweep: one outbox sweep (a job left by the former repeatable sweep; the reconcile,
 * src/domain/outbox/reconcile.ts, runs the sweeper now); prune: the delivery log's retention (D18), the
 * tracking requests' and codes' (D14), and the customer's data (SMS, chat, survey comments, tracking
 * tokens: issue 29 item 9).
 */
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { deliverStateNotification } from '../../src/domain/notifications/deliver.js';
import { wakeStateNotification } from '../../src/domain/notifications/enqueue.js';
import { sweepOutbox } from '../../src/domain/outbox/sweep.js';
import { pruneDeliveries } from '../../src/domain/deliveries/log.js';
import { pruneTracking } from '../../src/domain/tracking/codes.js';
import { pruneTechnicianTokens } from '../../src/auth/technicianToken.js';
import { pruneCustomerData } from '../../src/domain/tracking/retention.js';
import { pruneIdempotencyKeys } from '../../src/db/stores/idempotency.js';
import type { Runtime } from '../../src/domain/ports.js';
import type { JobRegistry } from '../../src/queues/registry.js';
import type { Handler } from './index.js';

type Payloads = JobRegistry['state-notification'];

/** The next delivery to the same receiver may go now. */
async function wake(rt: Runtime, next: string | null): Promise<void> {
  if (next) await wakeStateNotification(rt, next).catch((err: unknown) => rt.log.debug({ err, next }, 'next delivery not woken'));
}

async function delay(job: Job, ms: number): Promise<never> {
  await job.moveToDelayed(Date.now() + ms, job.token);
  throw new DelayedError();
}

export const notify: Handler<Payloads['notify']> = async (rt, data, job) => {
  const out = await deliverStateNotification(rt, data.deliveryId);
  switch (out.kind) {
    case 'skipped':
      return;
    case 'delivered':
      return wake(rt, out.next);
    case 'waiting':
      return delay(job, out.ms);
    case 'retry':
      if (out.afterMs !== null) return delay(job, out.afterMs);
      throw new Error(`state notification ${data.deliveryId} not delivered: ${out.reason}`);
    case 'gave-up':
      await wake(rt, out.next);
      throw new UnrecoverableError(`state notification ${data.deliveryId} given up: ${out.reason}`);
  }
};

export const prune: Handler<Payloads['prune']> = async (rt) => {
  const pruned = await pruneDeliveries(rt.orm.em.fork(), rt.config.deliveryRetentionDays);
  if (pruned.attempts || pruned.deliveries) rt.log.info({ pruned, days: rt.config.deliveryRetentionDays }, 'delivery log pruned');
  const tracking = await pruneTracking(rt.orm.em.fork());
  if (tracking.requests || tracking.codes) rt.log.info({ pruned: tracking }, 'tracking requests and codes pruned');
  const tokens = await pruneTechnicianTokens(rt.orm.em.fork());
  if (tokens) rt.log.info({ pruned: tokens }, 'expired technician tokens pruned');
  const customer = await pruneCustomerData(rt.orm.em.fork(), rt.config);
  if (Object.values(customer).some((n) => n > 0)) rt.log.info({ pruned: customer }, 'customer data past its retention pruned');
  const keys = await pruneIdempotencyKeys(rt.orm.em.fork());
  if (keys) rt.log.info({ pruned: keys }, 'idempotency keys past 24 hours pruned');
};

export const sweep: Handler<Payloads['sweep']> = async (rt) => {
  const swept = await sweepOutbox(rt);
  if (Object.values(swept).some((n) => typeof n === 'number' && n > 0)) rt.log.info({ swept }, 'outbox sweeper re-enqueued work');
};
