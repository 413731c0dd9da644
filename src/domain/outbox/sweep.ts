/**
 * The outbox sweeper: work that was committed but whose job was lost (the
 * process died between commit and enqueue, Redis was briefly away) is put
 * back on its queue. Each lookup is bounded and served by a partial index;
 * a job that still exists (waiting, delayed, active) is left alone, one that
 * finished while the row says otherwise is replaced (the row is the truth).
 * - state and novelty deliveries still pending (or stuck sending) a minute after creation;
 * - acceptance notifications (6.1) still pending a minute after creation, or
 *   sending for longer than the webhook timeout: the job's claim decides, so
 *   a pending one is still sent at most once, and a stuck one is settled as
 *   unanswered (D5) by the job that finds it;
 * - ABIERTA offers with no distribution record (no recipient, no push)
 *   DISTRIBUTION_SWEEP_AFTER_MS after creation (D8);
 * - ABIERTA offers a minute past their deadline (evaluation, D2);
 * - SIN_RESPUESTA offers a minute past their expiry (EXPIRADA, D1).
 */
import type { Runtime } from '../../main/runtime.js';
import { jobId, type QueueName } from '../../queues/registry.js';
import { enqueueStateNotification, notifyJobId } from '../notifications/enqueue.js';
import { enqueueAcceptance } from '../offers/selection/acceptanceNotification.js';

export const SWEEP_AFTER_MS = 60_000;
/** Shorter than the response window, so a lost distribution is usually repaired while responses are still taken. */
export const DISTRIBUTION_SWEEP_AFTER_MS = 5_000;
export const SWEEP_LIMIT = 200;

export interface SweepResult {
  notifications: number;
  acceptances: number;
  distributions: number;
  evaluations: number;
  expirations: number;
}

const AGO = `now() - make_interval(secs => ? / 1000.0)`;

const STALE_NOTIFICATIONS = `
  select id from webhook_delivery
   where state in ('pending', 'sending') and kind in ('state', 'novedad') and created_at < ${AGO}
   order by created_at limit ?`;

const STALE_ACCEPTANCES = `
  select id from webhook_delivery
   where state in ('pending', 'sending') and kind = 'acceptance' and created_at < ${AGO}
     and (state = 'pending' or sent_at < ${AGO})
   order by created_at limit ?`;

const UNDISTRIBUTED = `
  select o.uuid as id from offer o
   where o.state = 'ABIERTA' and o.created_at < ${AGO}
     and not exists (select 1 from offer_recipient r where r.offer_uuid = o.uuid)
     and not exists (select 1 from webhook_delivery d where d.offer_uuid = o.uuid and d.kind = 'offer-push')
   order by o.created_at limit ?`;

const OVERDUE_EVALUATIONS = `
  select uuid as id from offer where state = 'ABIERTA' and deadline_at < ${AGO} order by deadline_at limit ?`;

const OVERDUE_EXPIRIES = `
  select uuid as id from offer where state = 'SIN_RESPUESTA' and expires_at < ${AGO} order by expires_at limit ?`;

/** True when no live job has this id (absent, or finished and removed now). */
async function needsJob(rt: Pick<Runtime, 'queues'>, queue: QueueName, id: string): Promise<boolean> {
  const job = await rt.queues.get(queue).getJob(id);
  if (!job) return true;
  const state = await job.getState();
  if (state !== 'completed' && state !== 'failed') return false;
  await job.remove();
  return true;
}

interface Lost {
  queue: QueueName;
  /** the deterministic id of the job a row should have */
  jobIdOf: (rowId: string) => string;
  enqueue: (rowId: string, jobId: string) => Promise<void>;
}

/** For each row the bounded lookup returns, enqueues its job again when no live job has that id; returns how many. */
async function sweep(rt: Runtime, sql: string, params: number[], lost: Lost): Promise<number> {
  const rows = await rt.orm.em.fork().execute<Array<{ id: string }>>(sql, [...params, SWEEP_LIMIT]);
  let n = 0;
  for (const { id } of rows) {
    const job = lost.jobIdOf(id);
    if (!(await needsJob(rt, lost.queue, job))) continue;
    await lost.enqueue(id, job);
    n++;
  }
  return n;
}

export async function sweepOutbox(rt: Runtime): Promise<SweepResult> {
  const after = [SWEEP_AFTER_MS];
  return {
    notifications: await sweep(rt, STALE_NOTIFICATIONS, after, {
      queue: 'state-notification',
      jobIdOf: notifyJobId,
      enqueue: (id) => enqueueStateNotification(rt, id),
    }),
    acceptances: await sweep(rt, STALE_ACCEPTANCES, [SWEEP_AFTER_MS, rt.config.webhookTimeoutMs], {
      queue: 'webhook-dispatch',
      jobIdOf: (id) => jobId('deliver', id),
      enqueue: (id) => enqueueAcceptance(rt, id),
    }),
    distributions: await sweep(rt, UNDISTRIBUTED, [DISTRIBUTION_SWEEP_AFTER_MS], {
      queue: 'offer-distribution',
      jobIdOf: (uuid) => jobId('distribute', uuid),
      enqueue: (offerUuid, id) => rt.queues.add('offer-distribution', 'distribute', { offerUuid }, { jobId: id }),
    }),
    evaluations: await sweep(rt, OVERDUE_EVALUATIONS, after, {
      queue: 'offer-evaluation',
      jobIdOf: (uuid) => jobId('evaluate', uuid),
      enqueue: (offerUuid, id) => rt.queues.add('offer-evaluation', 'evaluate', { offerUuid }, { jobId: id }),
    }),
    expirations: await sweep(rt, OVERDUE_EXPIRIES, after, {
      queue: 'offer-evaluation',
      jobIdOf: (uuid) => jobId('expire', uuid),
      enqueue: (offerUuid, id) => rt.queues.add('offer-evaluation', 'expire', { offerUuid }, { jobId: id }),
    }),
  };
}
