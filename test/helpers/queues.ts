import type { Runtime } from '../../src/domain/ports.js';

/**
 * Removes every job of the run's queues. A suite that created offers without workers calls it when
 * it ends, and a suite that starts workers calls it before (with resetDb), so no worker runs a job
 * of another suite while the database is truncated under it.
 */
export async function clearQueues(rt: Pick<Runtime, 'queues'>): Promise<void> {
  await Promise.all(rt.queues.all().map((q) => q.obliterate({ force: true })));
}
