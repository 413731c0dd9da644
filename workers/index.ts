/**
 * Starts one BullMQ worker per queue and routes each job, by name, to its
 * processor. Boot fails when a job of the registry has no handler (STYLE 3).
 *
 * Time-critical work cannot be starved (issue 12.3, docs/decisions.md
 * "Auction under load"): each queue has its own Worker, so a backlog of one
 * never delays taking a job of another, and the queues that may pile up
 * (distribution, state notifications) run fewer jobs at once: a distribution
 * holds a PostgreSQL connection for its transaction, so at most 4 of the
 * process's 10 are ever theirs and they get a bounded share of the event
 * loop; a notification is mostly an HTTP wait (no connection held meanwhile).
 * Webhook-dispatch (the 6.1 acceptance send) keeps a high concurrency (an
 * HTTP wait each); the process that runs it also sends the 6.1 of the
 * selections it commits itself, without the queue's hop
 * (rt.acceptanceSends). Evaluation runs one job at a time: each closes
 * every window already due (and an expiry, on its own queue, every offer
 * already expired: src/domain/offers/selection/evaluation.ts), so when many are due together
 * the jobs queue briefly and the next one takes a larger batch and withdraws
 * the jobs of the rest, instead of small transactions competing for the CPU
 * and the pool (docs/decisions.md AUC-22); then it stays on, closing the
 * windows due next at their deadlines, as long as one is due within
 * CLOSING_LINGER_MS (a closing run, ISS32-4). A job waiting for
 * its own offer's lock (a response being written) holds the next closings
 * that long. `npm start` runs these two queues in their own process
 * (src/main/all.ts); the jobs of the others (background work) wait on the
 * closing gate while a window is overdue (TC-1, src/queues/closingGate.ts).
 */
import { Worker, type Job } from 'bullmq';
import { JOB_NAMES, QUEUE_NAMES, TIME_CRITICAL_QUEUES, type JobName, type JobPayload, type QueueName } from '../src/queues/registry.js';
import { ClosingGate } from '../src/queues/closingGate.js';
import { ClosingRun } from '../src/domain/offers/selection/closingRun.js';
import { createRedis } from '../src/queues/redis.js';
import { startSchedules } from '../src/queues/schedules.js';
import { startReconcile } from '../src/domain/outbox/reconcile.js';
import { isOutage } from '../src/outage.js';
import { InFlight } from '../src/main/inFlight.js';
import { EVALUATION_LEAD_MS } from '../src/domain/offers/create/schedule.js';
import type { Runtime } from '../src/domain/ports.js';
import { observeWorker, timeJob } from '../src/metrics/queues.js';
import { handlers as defaultHandlers, type Handlers } from './processors/index.js';

export interface WorkerOptions {
  concurrency?: Partial<Record<QueueName, number>>;
  /** the queues this process takes jobs from (default: the configuration's WORKER_QUEUES, all queues unless set) */
  queues?: readonly QueueName[];
  handlers?: Handlers;
}

export interface WorkerGroup {
  workers: Worker[];
  /** finish running jobs, take no new ones */
  close(): Promise<void>;
}

/**
 * a closing run hands over after this long (ms), in the first gap of EVALUATION_LEAD_MS before the next deadline (the
 * next due window's job, due that early, starts the next run), and at the latest after CLOSING_RUN_HARD_MAX_MS
 * (ISS32-12)
 */
export const CLOSING_RUN_MAX_MS = 5000;
export const CLOSING_RUN_HARD_MAX_MS = 60_000;

/**
 * ISS32-14: the PostgreSQL connections a worker process keeps open through quiet spells. One that closes windows keeps
 * two (a batch's transaction, and its 6.1's claim and records while the next batch runs): after more than the pool's
 * idle timeout (30 s) without a window, the next one otherwise waited for new backends, 6–16 ms each on issue 32's
 * tenth-session host, and for their first statements' catalog reads. Background workers keep none.
 */
export function keptDbConnections(queues: readonly QueueName[]): number {
  return queues.includes('offer-evaluation') ? 2 : 0;
}

export const DEFAULT_CONCURRENCY: Readonly<Record<QueueName, number>> = {
  /** bounded: a backlog drains at this many offers at once, the rest of the pool stays free */
  'offer-distribution': 4,
  /** one at a time: each closes a batch of due windows (see above) */
  'offer-evaluation': 1,
  /** one at a time likewise: each expires a batch of offers; background work since issue 32 (TC-2) */
  'offer-expiry': 1,
  'webhook-dispatch': 50,
  /** bounded likewise (was 50): notifications (D12) are not time-critical, mostly HTTP waits */
  'state-notification': 10,
  /** SMS providers are slow HTTP peers; a few at once */
  'customer-sms': 5,
};

export function checkHandlers(handlers: Handlers): void {
  for (const q of QUEUE_NAMES) {
    const table = handlers[q] as Record<string, unknown> | undefined;
    if (!table) throw new Error(`no handlers for queue ${q}`);
    for (const name of JOB_NAMES[q]) {
      if (typeof table[name] !== 'function') throw new Error(`job ${q}/${name} has no handler`);
    }
    for (const name of Object.keys(table)) {
      if (!(JOB_NAMES[q] as readonly string[]).includes(name)) throw new Error(`handler ${q}/${name} matches no job`);
    }
  }
}

export async function startWorkers(rt: Runtime, opts: WorkerOptions = {}): Promise<WorkerGroup> {
  const handlers = opts.handlers ?? defaultHandlers;
  checkHandlers(handlers);
  const connection = createRedis(rt.config, { maxRetriesPerRequest: null });
  const queues = opts.queues ?? rt.config.workerQueues;
  const background = queues.filter((q) => !TIME_CRITICAL_QUEUES.includes(q));
  // TC-1: background work does not start while the closing of windows is behind (src/queues/closingGate.ts): a job
  // waits before it runs, a distribution once it knows it has something to send (its many jobs that find their
  // offer done or too late cost a read each and do not wait)
  const gate = background.length ? new ClosingGate(() => rt.orm.em.fork(), { lateMs: rt.config.closingYieldLateMs, maxWaitMs: rt.config.closingYieldMaxMs }) : null;
  if (gate) rt.closingGate = gate;
  // ISS32-4: an evaluation job closes the windows due right after its own, each at its deadline, until none is near
  const closingRun = queues.includes('offer-evaluation') && rt.config.closingLingerMs > 0 ? new ClosingRun({ lingerMs: rt.config.closingLingerMs, maxRunMs: CLOSING_RUN_MAX_MS, handoffMs: EVALUATION_LEAD_MS, hardMaxRunMs: CLOSING_RUN_HARD_MAX_MS }) : null;
  if (closingRun) rt.closingRun = closingRun;
  const workers = QUEUE_NAMES.filter((q) => queues.includes(q)).map((queue) => {
    const table = handlers[queue] as Record<string, (rt: Runtime, data: unknown, job: Job) => Promise<void>>;
    const yields = gate && background.includes(queue) && queue !== 'offer-distribution' ? gate : null;
    const worker = new Worker(
      queue,
      async (job: Job) => {
        const handler = table[job.name];
        if (!handler) throw new Error(`job ${queue}/${job.name} has no handler`);
        if (yields) await yields.pass(queue);
        await timeJob(queue, job, () => handler(rt, job.data, job));
      },
      {
        connection,
        prefix: rt.queues.prefixOf(queue),
        concurrency: opts.concurrency?.[queue] ?? DEFAULT_CONCURRENCY[queue],
        lockDuration: rt.config.workerLockDurationMs,
        stalledInterval: rt.config.workerStalledIntervalMs,
      },
    );
    worker.on('failed', (job, err) => {
      rt.log.warn({ queue, job: job?.name, jobId: job?.id, attempts: job?.attemptsMade, err }, 'job failed');
    });
    // Redis or PostgreSQL away is expected and repaired (D21): a warning, not an error
    worker.on('error', (err) => (isOutage(err) ? rt.log.warn({ queue, err: String(err) }, 'worker: Redis or PostgreSQL away') : rt.log.error({ queue, err }, 'worker error')));
    observeWorker(worker, queue);
    return worker;
  });
  // The process that sends the 6.1 also sends it straight after the selections it commits (no queue hop), up to
  // ACCEPTANCE_SENDS_IN_FLIGHT at once; a send refused there goes to the queue.
  const sends =
    queues.includes('webhook-dispatch') && rt.config.acceptanceSendsInFlight > 0
      ? new InFlight(rt.config.acceptanceSendsInFlight, (err) => rt.log.error({ err }, 'acceptance notification send failed'))
      : null;
  if (sends) rt.acceptanceSends = sends;
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  await startSchedules(rt);
  // D21: what PostgreSQL says must be queued, re-created every SWEEP_INTERVAL_MS and on every reconnection to Redis;
  // background work (TC-3): a process that only closes windows and sends the 6.1 leaves it to the others
  const reconciler = background.length ? startReconcile(rt) : { stop: async () => undefined };
  return {
    workers,
    async close() {
      // a run waiting for its next deadline ends now; its job ends after the batch it is closing
      closingRun?.stop();
      await reconciler.stop();
      await Promise.all(workers.map((w) => w.close()));
      // the evaluations have ended: the sends they started finish before the process goes on stopping
      await sends?.drain();
      connection.disconnect();
    },
  };
}

export type { JobName, JobPayload };
