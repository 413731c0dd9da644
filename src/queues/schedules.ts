import type { Config } from '../../config/index.js';
import type { Queues } from './queues.js';
import { jobOptions } from './registry.js';

/** the outbox sweeper's former repeatable job (now the reconcile's): removed at start */
export const SWEEP_SCHEDULER_ID = 'outbox-sweep';
export const PRUNE_SCHEDULER_ID = 'delivery-retention';
/** How often the delivery log's retention job runs (D18). */
export const PRUNE_EVERY_MS = 6 * 3_600_000;

/**
 * Repeatable jobs: the delivery log's retention every six hours (D18). Upserting is idempotent, so every worker
 * process may do it; the reconcile (src/domain/outbox/reconcile.ts) does it again whenever Redis may have lost it
 * (D21). The outbox sweeper is no longer a repeatable job (it runs in the reconcile): a scheduler left by an
 * earlier version is removed.
 */
export async function startSchedules(rt: { config: Config; queues: Queues }): Promise<void> {
  const queue = rt.queues.get('state-notification');
  await queue.removeJobScheduler(SWEEP_SCHEDULER_ID);
  await queue.upsertJobScheduler(
    PRUNE_SCHEDULER_ID,
    { every: PRUNE_EVERY_MS },
    { name: 'prune', data: {}, opts: jobOptions('state-notification', 'prune', {}, rt.queues.settings) },
  );
}
