/**
 * The outbox sweeper: work that was committed but whose job was lost (the
 * process died between commit and enqueue, Redis was briefly away) is put
 * back on its queue. Each lookup is bounded and served by a partial index;
 * a job that still exists (waiting, delayed, active) is left alone, one that
 * finished while the row says otherwise is replaced (the row is the truth).
 * - state and novelty deliveries still pending (or stuck sending) a minute after creation;
 * - ABIERTA offers a minute past their deadline (evaluation, D2);
 * - SIN_RESPUESTA offers a minute past their expiry (EXPIRADA, D1).
 */
import type { JobsOptions } from 'bullmq';
import type { Runtime } from '../../main/runtime.js';
import { jobId, type JobName, type JobPayload, type QueueName } from '../../queues/registry.js';
import { enqueueStateNotification, notifyJobId } from '../notifications/enqueue.js';

export const SWEEP_AFTER_MS = 60_000;
export const SWEEP_LIMIT = 200;

export interface SweepResult {
  notifications: number;
  evaluations: number;
  expirations: number;
}

/** True when no live job has this id (absent, or finished and removed now). */
async function needsJob(rt: Pick<Runtime, 'queues'>, queue: QueueName, id: string): Promise<boolean> {
  const job = await rt.queues.get(queue).getJob(id);
  if (!job) return true;
  const state = await job.getState();
  if (state !== 'completed' && state !== 'failed') return false;
  await job.remove();
  return true;
}

async function requeue<Q extends QueueName, N extends JobName<Q>>(
  rt: Pick<Runtime, 'queues'>,
  queue: Q,
  name: N,
  data: JobPayload<Q, N>,
  opts: JobsOptions & { jobId: string },
): Promise<boolean> {
  if (!(await needsJob(rt, queue, opts.jobId))) return false;
  await rt.queues.add(queue, name, data, opts);
  return true;
}

async function ids(rt: Pick<Runtime, 'orm'>, sql: string, column: string): Promise<string[]> {
  const rows = await rt.orm.em.fork().execute<Array<Record<string, string>>>(sql, [SWEEP_AFTER_MS, SWEEP_LIMIT]);
  return rows.map((r) => r[column]);
}

export async function sweepOutbox(rt: Pick<Runtime, 'orm' | 'queues' | 'config'>): Promise<SweepResult> {
  const result: SweepResult = { notifications: 0, evaluations: 0, expirations: 0 };
  const deliveries = await ids(
    rt,
    `select id from webhook_delivery
      where state in ('pending', 'sending') and kind in ('state', 'novedad')
        and created_at < now() - make_interval(secs => ? / 1000.0)
      order by created_at limit ?`,
    'id',
  );
  for (const id of deliveries) {
    if (!(await needsJob(rt, 'state-notification', notifyJobId(id)))) continue;
    await enqueueStateNotification(rt, id);
    result.notifications++;
  }
  const open = await ids(
    rt,
    `select uuid from offer where state = 'ABIERTA' and deadline_at < now() - make_interval(secs => ? / 1000.0)
      order by deadline_at limit ?`,
    'uuid',
  );
  for (const offerUuid of open) {
    if (await requeue(rt, 'offer-evaluation', 'evaluate', { offerUuid }, { jobId: jobId('evaluate', offerUuid) })) result.evaluations++;
  }
  const unanswered = await ids(
    rt,
    `select uuid from offer where state = 'SIN_RESPUESTA' and expires_at < now() - make_interval(secs => ? / 1000.0)
      order by expires_at limit ?`,
    'uuid',
  );
  for (const offerUuid of unanswered) {
    if (await requeue(rt, 'offer-evaluation', 'expire', { offerUuid }, { jobId: jobId('expire', offerUuid) })) result.expirations++;
  }
  return result;
}
