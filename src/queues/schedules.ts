import type { Config } from '../../config/index.js';
import type { Queues } from './queues.js';
import { jobOptions } from './registry.js';

export const SWEEP_SCHEDULER_ID = 'outbox-sweep';
export const PRUNE_SCHEDULER_ID = 'delivery-retention';
/** How often the delivery log's retention job runs (D18). */
export const PRUNE_EVERY_MS = 6 * 3_600_000;

/**
 * Repeatable jobs, started by the worker role: the outbox sweeper every
 * SWEEP_INTERVAL_MS (0 removes it), and the delivery log's retention every
 * six hours (D18). Upserting is idempotent, so every worker process may do it.
 */
export async function startSchedules(rt: { config: Config; queues: Queues }): Promise<void> {
  const queue = rt.queues.get('state-notification');
  if (rt.config.sweepIntervalMs > 0) {
    await queue.upsertJobScheduler(
      SWEEP_SCHEDULER_ID,
      { every: rt.config.sweepIntervalMs },
      { name: 'sweep', data: {}, opts: jobOptions('state-notification', 'sweep', {}, rt.queues.settings) },
    );
  } else {
    await queue.removeJobScheduler(SWEEP_SCHEDULER_ID);
  }
  await queue.upsertJobScheduler(
    PRUNE_SCHEDULER_ID,
    { every: PRUNE_EVERY_MS },
    { name: 'prune', data: {}, opts: jobOptions('state-notification', 'prune', {}, rt.queues.settings) },
  );
}
