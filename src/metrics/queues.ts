/**
 * The queue signals operators alert on (issue 31, item 6), two kinds:
 *
 * - measured where jobs run (a worker process): completed, failed, stalled and
 *   given-up jobs, wait and run times. Plain prom-client observations in the
 *   process's registry, taken from the Worker's own events and around the
 *   processor: nothing is written to Redis per job; the figures reach a scrape
 *   with the process's registry, which publishMetrics sends every 5 s
 *   (metrics.ts), and the scrape sums them over processes;
 * - read at scrape time on the API process: the age of the oldest job waiting
 *   on each queue (one pipeline of two reads per queue, plus one read of the
 *   oldest waiting job's hash when there is one) and Redis's memory (INFO).
 */
import type { Job, Queue, Worker } from 'bullmq';
import { Counter, Gauge, Histogram, type Registry, type RegistryContentType } from 'prom-client';
import { keyspaces, type Redis } from '../queues/redis.js';
import { registry } from './registry.js';

/** Seconds, from a few milliseconds (a closing window) to minutes (a retried notification waiting for its turn). */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export const jobsCompleted = new Counter({
  name: 'broker_queue_jobs_completed_total',
  help: 'BullMQ jobs that ended well, by queue',
  labelNames: ['queue'] as const,
  registers: [registry],
});

export const jobsFailed = new Counter({
  name: 'broker_queue_jobs_failed_total',
  help: 'BullMQ job attempts that failed (retried or not), by queue',
  labelNames: ['queue'] as const,
  registers: [registry],
});

export const jobsGivenUp = new Counter({
  name: 'broker_queue_jobs_given_up_total',
  help: 'BullMQ jobs failed after their last attempt (or unrecoverably), left in the failed set, by queue',
  labelNames: ['queue'] as const,
  registers: [registry],
});

export const jobsStalled = new Counter({
  name: 'broker_queue_jobs_stalled_total',
  help: 'BullMQ jobs whose worker lost their lock (a process killed or blocked), moved back to wait, by queue',
  labelNames: ['queue'] as const,
  registers: [registry],
});

export const jobWait = new Histogram({
  name: 'broker_queue_job_wait_seconds',
  help: 'From a job enqueued (or, delayed, due) to its first attempt started, by queue',
  labelNames: ['queue'] as const,
  buckets: BUCKETS,
  registers: [registry],
});

export const jobRun = new Histogram({
  name: 'broker_queue_job_run_seconds',
  help: 'One attempt of a job, processor start to end (success or failure), by queue',
  labelNames: ['queue'] as const,
  buckets: BUCKETS,
  registers: [registry],
});

/** When a job was due: enqueued, or for a delayed one its delay later (BullMQ keeps the delay asked for in opts). */
function dueAt(job: Pick<Job, 'timestamp' | 'opts'>): number {
  return job.timestamp + (job.opts.delay ?? 0);
}

/**
 * Counts a worker's jobs by its own events (local to this process: no Redis call). A job failed for good is one
 * BullMQ moved to the failed set: it then sets finishedOn (a failure to be retried leaves it unset), which also
 * covers a job stalled more than maxStalledCount times (failed on its next take).
 */
export function observeWorker(worker: Worker, queue: string): void {
  const labels = { queue };
  // every series exists from the start (a rate over a missing series is no rate at all)
  for (const m of [jobsCompleted, jobsFailed, jobsGivenUp, jobsStalled]) m.inc(labels, 0);
  worker.on('completed', () => jobsCompleted.inc(labels));
  worker.on('failed', (job) => {
    jobsFailed.inc(labels);
    if (typeof job?.finishedOn === 'number') jobsGivenUp.inc(labels);
  });
  worker.on('stalled', () => jobsStalled.inc(labels));
}

/**
 * Runs one attempt of a job, timing it. The wait is observed at a job's first start only: a retry's due time (its
 * backoff after the failure) is not kept by BullMQ, and a job retaken after a stall was started once already.
 */
export async function timeJob<T>(queue: string, job: Job, run: () => Promise<T>): Promise<T> {
  const started = Date.now();
  if (job.attemptsStarted <= 1 && !job.attemptsMade) jobWait.observe({ queue }, Math.max(0, (job.processedOn ?? started) - dueAt(job)) / 1000);
  const end = jobRun.startTimer({ queue });
  try {
    return await run();
  } finally {
    end();
  }
}

/** BullMQ's delayed set scores a job by its due time in ms × 0x1000 (plus a counter in the low bits). */
const DELAYED_SCORE_MS = 0x1000;

/**
 * The age of the job waiting longest on each queue, in seconds (0 when none waits): the oldest of the wait list
 * (the next one taken), measured from when it was due; and a delayed job already past due, which only a running
 * worker promotes (a time-critical queue's backlog sits there, not in wait, while no worker runs). A waiting job
 * that is a retry is measured from its last attempt's start at the latest (BullMQ keeps no retry due time).
 */
export async function oldestWaiting(redis: Redis, queue: Queue, now = Date.now()): Promise<number> {
  const reads = await redis
    .pipeline()
    .lrange(queue.keys.wait, -1, -1)
    .zrange(queue.keys.delayed, '0', '0', 'WITHSCORES')
    .exec();
  const [waitIds, delayed] = (reads ?? []).map(([err, value]) => {
    if (err) throw err;
    return value as string[];
  });
  let since = now;
  if (delayed?.length === 2) since = Math.min(since, Math.floor(Number(delayed[1]) / DELAYED_SCORE_MS));
  const id = waitIds?.[0];
  if (id) {
    const [timestamp, processedOn, opts] = await redis.hmget(queue.toKey(id), 'timestamp', 'processedOn', 'opts');
    if (timestamp) {
      const delay = Number((JSON.parse(opts ?? '{}') as { delay?: number }).delay ?? 0);
      since = Math.min(since, Math.max(Number(timestamp) + delay, Number(processedOn ?? 0)));
    }
  }
  return Math.max(0, now - since) / 1000;
}

/**
 * Redis's `INFO memory` fields, in bytes (maxmemory 0: no limit set). On a Redis Cluster, those of the fullest
 * master (the highest share of its maxmemory, or the most used when none has a limit): the one that refuses writes
 * first.
 */
export async function redisMemory(redis: Redis): Promise<{ used: number; max: number }> {
  const read = async (node: Pick<Redis, 'info'>) => {
    const info = await node.info('memory');
    const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
    return { used: field('used_memory'), max: field('maxmemory') };
  };
  const nodes = keyspaces(redis);
  if (nodes.length <= 1) return read(redis);
  const all = await Promise.all(nodes.map(read));
  const fullness = (m: { used: number; max: number }) => (m.max > 0 ? m.used / m.max : 0);
  return all.reduce((a, b) => (fullness(b) > fullness(a) || (fullness(b) === fullness(a) && b.used > a.used) ? b : a));
}

/** The scrape-time queue and Redis gauges, into the merged registry of one scrape. */
export async function addScrapeGauges(into: Registry<RegistryContentType>, redis: Redis, queues: readonly Queue[]): Promise<void> {
  const oldest = new Gauge({
    name: 'broker_queue_oldest_waiting_job_age_seconds',
    help: 'Age of the job waiting longest (enqueued, or due when delayed) per queue, read at scrape time; 0 when none waits',
    labelNames: ['queue'] as const,
    registers: [into],
  });
  const ages = await Promise.all(queues.map((q) => oldestWaiting(redis, q)));
  queues.forEach((q, i) => oldest.set({ queue: q.name }, ages[i]));

  const memory = await redisMemory(redis);
  new Gauge({ name: 'broker_redis_memory_used_bytes', help: 'Redis used_memory (INFO memory), read at scrape time; on a Redis Cluster, the fullest master’s', registers: [into] }).set(memory.used);
  new Gauge({
    name: 'broker_redis_maxmemory_bytes',
    help: 'Redis maxmemory (INFO memory), read at scrape time; 0 when no limit is set; on a Redis Cluster, the fullest master’s',
    registers: [into],
  }).set(memory.max);
}
