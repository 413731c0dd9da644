/**
 * Each process's heartbeat (issue 30, item 3): every API and worker process
 * writes one field of a Redis hash, `<role>:<host>:<pid>` → its role, the
 * queues it takes and the time, in the same pipeline as its metrics every
 * PUBLISH_EVERY_MS (metrics.ts: no round trip of its own). A process that
 * stops cleanly removes its field; one that died keeps it until a scrape
 * finds it older than KEEP_MS, so "no heartbeat for 30 s" is seen (and
 * alerted on) even once a restarted process beats beside it. The hash itself
 * expires when no process has written for KEEP_MS.
 */
import { hostname } from 'node:os';
import type { ChainableCommander } from 'ioredis';
import type { Redis } from '../queues/redis.js';
import { Gauge, type Registry, type RegistryContentType } from 'prom-client';

/** Beside the metrics hash, under the same hash tag: one pipeline writes both, also on a Redis Cluster (D22). */
export const heartbeatsKey = (prefix: string): string => `${prefix}:{metrics}:heartbeats`;
const KEY = heartbeatsKey;
/** a beat older than this is dropped at the next scrape */
export const KEEP_MS = 5 * 60_000;
/** a process that has not beaten for this long is not counted among a queue's live workers */
export const ALIVE_MS = 30_000;

export interface Beat {
  role: string;
  pid: number;
  host: string;
  /** the queues a worker process takes jobs from (none for an API process) */
  queues: readonly string[];
  at: number;
}

export interface Heart {
  field: string;
  /** adds this beat's writes to a pipeline */
  beat(pipeline: ChainableCommander, at?: number): ChainableCommander;
  /** adds the removal of this process's beat (a clean stop) to a pipeline */
  stop(pipeline: ChainableCommander): ChainableCommander;
}

export function heart(prefix: string, role: string, queues: readonly string[] = []): Heart {
  const host = hostname();
  const field = `${role}:${host}:${process.pid}`;
  return {
    field,
    beat: (pipeline, at = Date.now()) =>
      pipeline.hset(KEY(prefix), field, JSON.stringify({ role, pid: process.pid, host, queues, at } satisfies Beat)).pexpire(KEY(prefix), KEEP_MS),
    stop: (pipeline) => pipeline.hdel(KEY(prefix), field),
  };
}

/**
 * The heartbeats into one scrape's registry: the time of each process's last beat, and per queue how many live
 * processes take it (0: nothing runs that queue's jobs). Beats older than KEEP_MS are removed.
 */
export async function addHeartbeatGauges(into: Registry<RegistryContentType>, redis: Redis, prefix: string, queueNames: readonly string[], now = Date.now()): Promise<void> {
  const stored = await redis.hgetall(KEY(prefix));
  const beats: Beat[] = [];
  const gone: string[] = [];
  for (const [field, value] of Object.entries(stored)) {
    const beat = JSON.parse(value) as Beat;
    if (now - beat.at > KEEP_MS) gone.push(field);
    else beats.push(beat);
  }
  if (gone.length) await redis.hdel(KEY(prefix), ...gone);

  const last = new Gauge({
    name: 'broker_process_heartbeat_seconds',
    help: 'Unix time of each API and worker process’s last heartbeat (written every 5 s; kept 5 min after it stops)',
    labelNames: ['role', 'host', 'pid'] as const,
    registers: [into],
  });
  for (const b of beats) last.set({ role: b.role, host: b.host, pid: String(b.pid) }, b.at / 1000);

  const workers = new Gauge({
    name: 'broker_queue_worker_processes',
    help: 'Processes taking jobs from each queue whose last heartbeat is under 30 s old',
    labelNames: ['queue'] as const,
    registers: [into],
  });
  for (const queue of queueNames) {
    workers.set({ queue }, beats.filter((b) => now - b.at <= ALIVE_MS && b.queues.includes(queue)).length);
  }
}
