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
 * It runs inside the reconcile (src/domain/outbox/reconcile.ts), periodically and, after Redis lost (or may have
 * lost) its jobs, in full (SweepOptions.full: every open offer, no waiting).
 * - state and novelty deliveries still pending (or stuck sending) a minute after creation;
 * - acceptance notifications (6.1) still pending RECONCILE_GRACE_MS after creation, or
 *   sending for longer than the webhook timeout: the job's claim decides, so
 *   a pending one is still sent at most once, and a stuck one is settled as
 *   unanswered (D5) by the job that finds it;
 * - ABIERTA offers not recorded by any distribution (`distributed_at`), or
 *   whose distribution committed its recipients but did not finish sending
 *   (a technician not notified, a push still pending: the job failed after
 *   the commit), DISTRIBUTION_SWEEP_AFTER_MS after creation (D8); the re-run
 *   records nothing new and sends only what is left;
 * - ABIERTA offers EVALUATION_GRACE_MS past their deadline (evaluation, D2; a live job, e.g. one waiting behind
 *   others, is left alone), so a window whose job was lost closes within a reconcile interval of its deadline;
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
import { distributionCutoffMs } from '../distribution/distribute.js';
import { evaluationDueAt } from '../offers/create/schedule.js';

export const SWEEP_AFTER_MS = 60_000;
/**
 * D21 (issue 30): how long an acceptance notification (6.1) may stay pending before its job is re-created (its
 * claim keeps it at most once); in a full reconcile, the state notifications too.
 */
export const RECONCILE_GRACE_MS = 3_000;
/** An ABIERTA offer this long past its deadline has lost its evaluation job (or it waits behind others: left alone). */
export const EVALUATION_GRACE_MS = 1_000;
/** Rows read per page and most jobs enqueued per lookup in a full reconcile (after Redis lost its data). */
export const FULL_LIMIT = 1_000;
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
  /** every lookup read its rows to the end (none stopped at its limit) */
  complete: boolean;
}

export interface SweepOptions {
  /**
   * The reconcile after Redis lost (or may have lost) its jobs (src/domain/outbox/reconcile.ts): every ABIERTA
   * offer's evaluation at its deadline (at once when past), every undistributed offer, every delivery pending
   * past RECONCILE_GRACE_MS, every overdue expiry, on cursors of their own.
   */
  full?: boolean;
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
  enqueue: (rowId: string, jobId: string, k: string) => Promise<void>;
  /** rows per page and most jobs enqueued (default SWEEP_LIMIT) */
  limit?: number;
}

/** A keyset row's timestamp key (`timestamptz::text`, e.g. `2026-11-28 09:40:01.123456+00`) as a Date. */
export function keyDate(k: string): Date {
  return new Date(k.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
}

/**
 * Reads the lookup's rows page by page from its cursor and enqueues the job
 * of each row that has no live one, until SWEEP_LIMIT are enqueued, the rows
 * run out (the cursor starts over) or SWEEP_SCAN_PAGES were read (the cursor
 * is kept for the next sweep). Returns how many were enqueued.
 */
async function sweep(rt: Runtime, lost: Lost): Promise<{ n: number; done: boolean }> {
  const limit = lost.limit ?? SWEEP_LIMIT;
  const cursorKey = `${rt.config.queuePrefix}-sweep-cursor:${lost.name}`;
  const saved = await rt.redis.get(cursorKey);
  let cursor: Cursor = saved ? (JSON.parse(saved) as Cursor) : START;
  // Started midway: at the end, go round once more from the start.
  let wrapped = !saved;
  const em = rt.orm.em.fork();
  let n = 0;
  for (let page = 0; page < SWEEP_SCAN_PAGES && n < limit; page++) {
    const rows = await lost.page(em, cursor, limit);
    const jobs = rows.map((r) => lost.jobIdOf(r.id));
    const free = rows.length ? await withoutLiveJob(rt, lost.queue, jobs) : new Set<string>();
    for (const [i, row] of rows.entries()) {
      cursor = { k: row.k, id: row.id };
      if (!free.has(jobs[i])) continue;
      await lost.enqueue(row.id, jobs[i], row.k);
      if (++n >= limit) break;
    }
    if (rows.length < limit && n < limit) {
      if (wrapped) {
        await rt.redis.del(cursorKey);
        return { n, done: true };
      }
      wrapped = true;
      cursor = START;
    }
  }
  await rt.redis.set(cursorKey, JSON.stringify(cursor), 'EX', 24 * 3600);
  return { n, done: false };
}

export async function sweepOutbox(rt: Runtime, opts: SweepOptions = {}): Promise<SweepResult> {
  const full = opts.full ?? false;
  // a full reconcile keeps cursors of its own: its lookups select other rows
  const name = (n: string) => (full ? `${n}:full` : n);
  const limit = full ? FULL_LIMIT : SWEEP_LIMIT;
  // every ABIERTA offer: none is open longer than its window (its deadline is at most a window ahead)
  const evaluationsAgo = full ? -(rt.config.offerResponseWindowMs + SWEEP_AFTER_MS) : EVALUATION_GRACE_MS;
  const results = [
    await sweep(rt, {
      name: name('notifications'),
      page: (em, cursor, n) => staleNotificationsPage(em, full ? RECONCILE_GRACE_MS : SWEEP_AFTER_MS, cursor, n),
      queue: 'state-notification',
      jobIdOf: notifyJobId,
      enqueue: (id) => enqueueStateNotification(rt, id),
      limit,
    }),
    await sweep(rt, {
      name: name('acceptances'),
      page: (em, cursor, n) => staleAcceptancesPage(em, RECONCILE_GRACE_MS, rt.config.webhookTimeoutMs, cursor, n),
      queue: 'webhook-dispatch',
      jobIdOf: (id) => jobId('deliver', id),
      enqueue: (id) => enqueueAcceptance(rt, id),
      limit,
    }),
    await sweep(rt, {
      name: name('distributions'),
      page: (em, cursor, n) => undistributedPage(em, full ? 0 : DISTRIBUTION_SWEEP_AFTER_MS, distributionCutoffMs(rt.config), cursor, n),
      queue: 'offer-distribution',
      jobIdOf: (uuid) => jobId('distribute', uuid),
      enqueue: (offerUuid, id) => rt.queues.add('offer-distribution', 'distribute', { offerUuid }, { jobId: id }),
      limit,
    }),
    await sweep(rt, {
      name: name('evaluations'),
      page: (em, cursor, n) => overdueEvaluationsPage(em, evaluationsAgo, cursor, n),
      queue: 'offer-evaluation',
      jobIdOf: (uuid) => jobId('evaluate', uuid),
      // at its deadline (k), due a little before it (ISS32-11): at once when that has passed
      enqueue: (offerUuid, id, k) =>
        rt.queues.add('offer-evaluation', 'evaluate', { offerUuid }, { jobId: id, delay: Math.max(0, evaluationDueAt(keyDate(k)).getTime() - Date.now()) }),
      limit,
    }),
    await sweep(rt, {
      name: name('expirations'),
      page: (em, cursor, n) => overdueExpiriesPage(em, full ? 0 : SWEEP_AFTER_MS, cursor, n),
      queue: 'offer-expiry',
      jobIdOf: (uuid) => jobId('expire', uuid),
      enqueue: (offerUuid, id) => rt.queues.add('offer-expiry', 'expire', { offerUuid }, { jobId: id }),
      limit,
    }),
  ];
  const [notifications, acceptances, distributions, evaluations, expirations] = results.map((r) => r.n);
  return { notifications, acceptances, distributions, evaluations, expirations, complete: results.every((r) => r.done) };
}
