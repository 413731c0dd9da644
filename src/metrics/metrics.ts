/**
 * Prometheus metrics (D19) from prom-client. Every process (API processes and
 * workers) observes into its own registry and publishes it to Redis every few
 * seconds (one pipeline with its heartbeat, never per request); a scrape of GET /metrics on any API
 * process merges every live process's figures with prom-client's
 * AggregatorRegistry, and adds what it reads at scrape time: the BullMQ queue
 * depths, the oldest waiting job per queue, Redis's memory (queues.ts) and
 * every process's heartbeat (heartbeat.ts). The queue signals measured where
 * jobs run (queues.ts) travel the same way: no Redis write per job.
 */
import { AggregatorRegistry, Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Redis } from '../queues/redis.js';
import type { Queues } from '../queues/queues.js';
import { addHeartbeatGauges, heart } from './heartbeat.js';
import { addScrapeGauges } from './queues.js';
import { registry } from './registry.js';

export { registry };

type ProcessMetrics = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

export const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP requests by method, declared route (path template) and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const selectionLateness = new Histogram({
  name: 'broker_offer_selection_lateness_seconds',
  help: 'From an offer’s deadline to its selection committed (D2)',
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const distributionsTooLate = new Counter({
  name: 'broker_offer_distributions_too_late_total',
  help: 'Distribution jobs that found their offer, never distributed, with less than DISTRIBUTION_CUTOFF_MS of its window left (a distribution backlog; the jobs of the older offers behind it are then withdrawn together, DIST-1)',
  registers: [registry],
});

export const webhookDeliveries = new Counter({
  name: 'broker_webhook_deliveries_total',
  help: 'Outgoing webhook attempts by kind and outcome (ok: a 2xx; failed: another status or no answer)',
  labelNames: ['kind', 'outcome'] as const,
  registers: [registry],
});

const socketCounts: { read: () => Record<string, number> } = { read: () => ({}) };

export const sockets = new Gauge({
  name: 'broker_sockets',
  help: 'Open WebSocket connections by kind of client',
  labelNames: ['kind'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [kind, n] of Object.entries(socketCounts.read())) this.set({ kind }, n);
  },
});

/** The realtime server of an API process says how to count its sockets. */
export function countSocketsWith(read: () => Record<string, number>): void {
  socketCounts.read = read;
}

/** Hash-tagged: the heartbeats' hash goes in the same pipeline (heartbeat.ts), on a Redis Cluster too (D22). */
export const metricsKey = (prefix: string): string => `${prefix}:{metrics}`;
const KEY = metricsKey;
/** A process that has not published for this long is gone: its figures are left out. */
const STALE_MS = 30_000;
export const PUBLISH_EVERY_MS = 5_000;

/**
 * Publishes this process's metrics, with its heartbeat in the same pipeline, every PUBLISH_EVERY_MS (and at once);
 * `queues`: those a worker process takes jobs from. Returns the stop function.
 */
export function publishMetrics(redis: Redis, prefix: string, name: string, queues: readonly string[] = []): () => Promise<void> {
  const field = `${name}:${process.pid}`;
  const beating = heart(prefix, name, queues);
  const publish = async () => {
    const metrics = await registry.getMetricsAsJSON();
    const at = Date.now();
    const results = await beating.beat(redis.pipeline().hset(KEY(prefix), field, JSON.stringify({ at, metrics })), at).exec();
    const failed = results?.find(([err]) => err)?.[0];
    if (failed) throw failed;
  };
  let inFlight: Promise<void> = Promise.resolve();
  const tick = () => {
    inFlight = publish().catch(() => undefined);
  };
  tick();
  const timer = setInterval(tick, PUBLISH_EVERY_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await inFlight; // a publish under way would otherwise write the beat back after its removal
    await beating.stop(redis.pipeline().hdel(KEY(prefix), field)).exec().catch(() => undefined);
  };
}

/** Prometheus text of every live process, plus what is read at scrape time (queues, Redis, heartbeats). */
export async function scrape(redis: Redis, prefix: string, queues: Queues): Promise<{ contentType: string; text: string }> {
  const own = await registry.getMetricsAsJSON();
  const stored = await redis.hgetall(KEY(prefix));
  const now = Date.now();
  const others: ProcessMetrics[] = [];
  for (const [field, value] of Object.entries(stored)) {
    const entry = JSON.parse(value) as { at: number; metrics: ProcessMetrics };
    if (field === `api:${process.pid}`) continue; // this process: its live figures instead
    if (now - entry.at > STALE_MS) {
      await redis.hdel(KEY(prefix), field);
      continue;
    }
    others.push(entry.metrics);
  }
  const merged = AggregatorRegistry.aggregate([own, ...others]);
  const depth = new Gauge({ name: 'broker_queue_jobs', help: 'BullMQ jobs by queue and state', labelNames: ['queue', 'state'] as const, registers: [merged] });
  for (const q of queues.all()) {
    const counts = await q.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized', 'waiting-children');
    for (const [state, n] of Object.entries(counts)) depth.set({ queue: q.name, state }, n);
  }
  await addScrapeGauges(merged, redis, queues.all());
  await addHeartbeatGauges(merged, redis, prefix, queues.all().map((q) => q.name));
  return { contentType: merged.contentType, text: await merged.metrics() };
}
