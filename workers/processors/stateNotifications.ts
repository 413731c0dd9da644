/**
 * state-notification/notify: one try of a delivery (D12). A failed try is
 * thrown so BullMQ backs off exponentially; a Retry-After, or an earlier
 * delivery to the same receiver still unfinished, moves the job to delayed
 * instead (not counted as a BullMQ attempt; the row counts every try).
 * state-notification/sweep: the outbox sweeper.
 */
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { deliverStateNotification } from '../../src/domain/notifications/deliver.js';
import { sweepOutbox } from '../../src/domain/outbox/sweep.js';
import type { JobRegistry } from '../../src/queues/registry.js';
import type { Handler } from './index.js';

type Payloads = JobRegistry['state-notification'];

async function delay(job: Job, ms: number): Promise<never> {
  await job.moveToDelayed(Date.now() + ms, job.token);
  throw new DelayedError();
}

export const notify: Handler<Payloads['notify']> = async (rt, data, job) => {
  const out = await deliverStateNotification(rt, data.deliveryId);
  switch (out.kind) {
    case 'skipped':
    case 'delivered':
      return;
    case 'waiting':
      return delay(job, out.ms);
    case 'retry':
      if (out.afterMs !== null) return delay(job, out.afterMs);
      throw new Error(`state notification ${data.deliveryId} not delivered: ${out.reason}`);
    case 'gave-up':
      throw new UnrecoverableError(`state notification ${data.deliveryId} given up: ${out.reason}`);
  }
};

export const sweep: Handler<Payloads['sweep']> = async (rt) => {
  const swept = await sweepOutbox(rt);
  if (swept.notifications + swept.evaluations + swept.expirations > 0) rt.log.info({ swept }, 'outbox sweeper re-enqueued work');
};
