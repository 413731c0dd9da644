import type { Runtime } from '../ports.js';
import { jobId } from '../../queues/registry.js';

/**
 * Enqueues a planned state notification (D12); its retry policy
 * (NOTIFICATION_ATTEMPTS tries, exponential backoff from
 * NOTIFICATION_BACKOFF_MS) and id are the registry's. The job id derives from
 * the delivery, so enqueueing twice is harmless.
 */
export async function enqueueStateNotification(rt: Pick<Runtime, 'queues'>, deliveryId: string): Promise<void> {
  await rt.queues.add('state-notification', 'notify', { deliveryId });
}

export function notifyJobId(deliveryId: string): string {
  return jobId('notify', deliveryId);
}

/**
 * Lets a delivery that waits for an earlier one (ordering) go now instead of
 * at the end of its wait: promotes its job when it is delayed. Best effort;
 * the wait's own timer remains the fallback.
 */
export async function wakeStateNotification(rt: Pick<Runtime, 'queues'>, deliveryId: string): Promise<void> {
  const job = await rt.queues.get('state-notification').getJob(notifyJobId(deliveryId));
  if (job && (await job.isDelayed())) await job.promote();
}
