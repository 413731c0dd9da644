/**
 * The outbox sweeper: work that was committed but whose job was lost (the
 * process died between commit and enqueue, Redis was briefly away) is put
 * back on its queue. Each lookup is read in pages (keyset order, served by a
 * partial index); the jobs of a page are looked up together, a job that still
 * exists (waiting, delayed, active) is left alone and the next page is read,
 * so rows whose jobs wait (a receiver's `Retry-After: 3600`) never starve the
 * others. A sweep reads at most SWEEP_SCAN_PAGES pages per lookup and, when
 * it stops there, the next sweep goes on from that row (a cursor in Redis),
 * so every row is reached. A job that finished while the row says otherwise
 * is replaced (the row is the truth).
 * - state and novelty deliveries still pending (or stuck sending) a minute after creation;
 * - acceptance notifications (6.1) still pending a minute after creation, or
 *   sending for longer than the webhook timeout: the job's claim decides, so
 *   a pending one is still sent at most once, and a stuck one is settled as
 *   unanswered (D5) by the job that finds it;
 * - ABIERTA offers not recorded by any distribution (`distributed_at`), or
 *   whose distribution committed its recipients but did not finish sending
 *   (a technician not notified, a push still pending: the job failed after
 *   the commit), DISTRIBUTION_SWEEP_AFTER_MS after creation (D8); the re-run
 *   records nothing new and sends only what is left;
 * - ABIERTA offers a minute past their deadline (evaluation, D2);
 * - SIN_RESPUESTA offers a minute past their expiry (EXPIRADA, D1).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Runtime } from '../ports.js';
import { staleAcceptancesPage, staleNotificationsPage } from '../../db/stores/deliveries.js';
import type { KeysetCursor, KeysetRow } from '../../db/stores/keyset.js';
import { overdueEvaluationsPage, overdueExpiriesPage, undistributedPage } from '../../db/stores/offers.js';
import { jobId, type QueueName } from '../../queues/registry.js';
import { enqueueStateNotification, notifyJobId } from '../notifications/enqueue.js';
import { enqueueAcceptance } from '../offers/selection/acceptanceNotification.js';

export const SWEEP_AFTER_MS = 60_000;
/** Shorter than the response window, so a lost distribution is usually repaired while responses are still taken. */
export const DISTRIBUTION_SWEEP_AFTER_MS = 5_000;
/** Rows read per page, and most jobs enqueued per lookup and sweep. */
export const SWEEP_LIMIT = 200;
/** Pages read per lookup and sweep; the next sweep continues from where this one stopped. */
export const SWEEP_SCAN_PAGES = 10;

export interface SweepResult {
  notifications: number;
  acceptances: number;
  distributions: number;
  evaluations: number;
  expirations: number;
}

const START: Cursor = { k: '-infinity', id: '00000000-0000-0000-0000-000000000000' };

type Cursor = KeysetCursor;

const LIVE = new Set(['waiting', 'delayed', 'active', 'prioritized', 'waiting-children']);

/**
 * The job ids of `ids` that no live job holds (absent, or finished: removed
 * now). The states are asked all at once, so the commands share round trips.
 */
async function withoutLiveJob(rt: Pick<Runtime, 'queues'>, queue: QueueName, ids: string[]): Promise<Set<string>> {
  const q = rt.queues.get(queue);
  const states = await Promise.all(ids.map((id) => q.getJobState(id)));
  const finished = ids.filter((_, i) => states[i] === 'completed' || states[i] === 'failed');
  await Promise.all(finished.map((id) => q.remove(id)));
  return new Set(ids.filter((_, i) => !LIVE.has(states[i])));
}

interface Lost {
  /** names the lookup's cursor */
  name: string;
  /** a page of the lookup's rows (`id` and its sort key `k`) after the cursor */
  page: (em: EntityManager, cursor: Cursor, limit: number) => Promise<KeysetRow[]>;
  queue: QueueName;
  /** the deterministic id of the job a row should have */
  jobIdOf: (rowId: string) => string;
  enqueue: (rowId: string, jobId: string) => Promise<void>;
}

/**
 * Reads the lookup's rows page by page from its cursor and enqueues the job
 * of each row that has no live one, until SWEEP_LIMIT are enqueued, the rows
 * run out (the cursor starts over) or SWEEP_SCAN_PAGES were read (the cursor
 * is kept for the next sweep). Returns how many were enqueued.
 */
async function sweep(rt: Runtime, lost: Lost): Promise<number> {
  const cursorKey = `${rt.config.queuePrefix}-sweep-cursor:${lost.name}`;
  const saved = await rt.redis.get(cursorKey);
  let cursor: Cursor = saved ? (JSON.parse(saved) as Cursor) : START;
  // Started midway: at the end, go round once more from the start.
  let wrapped = !saved;
  const em = rt.orm.em.fork();
  let n = 0;
  for (let page = 0; page < SWEEP_SCAN_PAGES && n < SWEEP_LIMIT; page++) {
    const rows = await lost.page(em, cursor, SWEEP_LIMIT);
    const jobs = rows.map((r) => lost.jobIdOf(r.id));
    const free = rows.length ? await withoutLiveJob(rt, lost.queue, jobs) : new Set<string>();
    for (const [i, row] of rows.entries()) {
      cursor = { k: row.k, id: row.id };
      if (!free.has(jobs[i])) continue;
      await lost.enqueue(row.id, jobs[i]);
      if (++n >= SWEEP_LIMIT) break;
    }
    if (rows.length < SWEEP_LIMIT && n < SWEEP_LIMIT) {
      if (wrapped) {
        await rt.redis.del(cursorKey);
        return n;
      }
      wrapped = true;
      cursor = START;
    }
  }
  await rt.redis.set(cursorKey, JSON.stringify(cursor), 'EX', 24 * 3600);
  return n;
}

export async function sweepOutbox(rt: Runtime): Promise<SweepResult> {
  return {
    notifications: await sweep(rt, {
      name: 'notifications',
      page: (em, cursor, limit) => staleNotificationsPage(em, SWEEP_AFTER_MS, cursor, limit),
      queue: 'state-notification',
      jobIdOf: notifyJobId,
      enqueue: (id) => enqueueStateNotification(rt, id),
    }),
    acceptances: await sweep(rt, {
      name: 'acceptances',
      page: (em, cursor, limit) => staleAcceptancesPage(em, SWEEP_AFTER_MS, rt.config.webhookTimeoutMs, cursor, limit),
      queue: 'webhook-dispatch',
      jobIdOf: (id) => jobId('deliver', id),
      enqueue: (id) => enqueueAcceptance(rt, id),
    }),
    distributions: await sweep(rt, {
      name: 'distributions',
      page: (em, cursor, limit) => undistributedPage(em, DISTRIBUTION_SWEEP_AFTER_MS, cursor, limit),
      queue: 'offer-distribution',
      jobIdOf: (uuid) => jobId('distribute', uuid),
      enqueue: (offerUuid, id) => rt.queues.add('offer-distribution', 'distribute', { offerUuid }, { jobId: id }),
    }),
    evaluations: await sweep(rt, {
      name: 'evaluations',
      page: (em, cursor, limit) => overdueEvaluationsPage(em, SWEEP_AFTER_MS, cursor, limit),
      queue: 'offer-evaluation',
      jobIdOf: (uuid) => jobId('evaluate', uuid),
      enqueue: (offerUuid, id) => rt.queues.add('offer-evaluation', 'evaluate', { offerUuid }, { jobId: id }),
    }),
    expirations: await sweep(rt, {
      name: 'expirations',
      page: (em, cursor, limit) => overdueExpiriesPage(em, SWEEP_AFTER_MS, cursor, limit),
      queue: 'offer-evaluation',
      jobIdOf: (uuid) => jobId('expire', uuid),
      enqueue: (offerUuid, id) => rt.queues.add('offer-evaluation', 'expire', { offerUuid }, { jobId: id }),
    }),
  };
}
