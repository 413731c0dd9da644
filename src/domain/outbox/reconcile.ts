/**
 * The reconcile (D21, issue 30): PostgreSQL is the truth, Redis may lose
 * everything. Every worker process runs it every SWEEP_INTERVAL_MS and on
 * every (re)connection of its Redis connection ('ready'); one process at a
 * time (a lock in Redis). It
 * - re-creates the repeatable schedules (delivery retention) and removes the
 *   old outbox-sweep scheduler (the sweep is this routine now);
 * - runs the outbox sweeper (sweep.ts): lost enqueues, overdue windows,
 *   pending acceptance notifications;
 * - in full (at start, after a reconnection, and whenever its marker key is
 *   missing from Redis, which is what a Redis restarted empty or a failover
 *   to a replica without it looks like): re-creates the jobs Redis lost from
 *   PostgreSQL: the distribution of every offer not yet distributed, the
 *   evaluation of every ABIERTA offer at its deadline (at once when past),
 *   every pending webhook and notification delivery, every overdue expiry.
 *   The marker is set once a full pass read every lookup to its end.
 * Job ids are the registry's (derived from the row), and a row whose job is
 * live is left alone, so running it again, or from several processes, adds
 * nothing twice; an acceptance notification's claim keeps it at most once.
 */
import type { Runtime } from '../ports.js';
import { startSchedules } from '../../queues/schedules.js';
import { sweepOutbox, type SweepResult } from './sweep.js';

export interface ReconcileResult extends SweepResult {
  full: boolean;
}

export const reconciledKey = (prefix: string) => `${prefix}-reconciled`;
const lockKey = (prefix: string) => `${prefix}-reconcile-lock`;

/** One pass (the caller holds the lock): full when asked or when Redis has lost the marker. */
export async function reconcile(rt: Runtime, opts: { full?: boolean } = {}): Promise<ReconcileResult> {
  const marker = reconciledKey(rt.config.queuePrefix);
  const full = opts.full || (await rt.redis.exists(marker)) === 0;
  if (full) await startSchedules(rt);
  const swept = await sweepOutbox(rt, { full });
  if (full && swept.complete) await rt.redis.set(marker, new Date().toISOString());
  return { ...swept, full };
}

/** after a failed pass (PostgreSQL or Redis away), the next one */
const RETRY_MS = 1000;

const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

export interface Reconciler {
  /** runs a pass now (a full one when `full`) unless one is running, then another once it ends */
  trigger(full?: boolean): void;
  /** resolves once the pass running (if any) has ended; passes after it are not started */
  stop(): Promise<void>;
}

/**
 * Starts the reconcile of this process: a full pass now, one every
 * SWEEP_INTERVAL_MS and a full one on every 'ready' of `rt.redis` (and again an interval later). Off when
 * SWEEP_INTERVAL_MS is 0. A pass that fails (PostgreSQL or Redis away) is
 * logged and tried again a second later, so a recovery is reconciled at once;
 * a full pass asked for stays asked for until one ran.
 */
export function startReconcile(rt: Runtime, opts: { onPass?: (r: ReconcileResult) => void } = {}): Reconciler {
  const every = rt.config.sweepIntervalMs;
  if (every <= 0) return { trigger: () => undefined, stop: async () => undefined };
  const token = `${process.pid}:${Math.random().toString(36).slice(2)}`;
  const lock = lockKey(rt.config.queuePrefix);
  // full passes asked for (at start, on each 'ready') and the last one asked for that has run
  let fullAsked = 1;
  let fullDone = 0;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  /** the one retry after a failed pass */
  let retry: NodeJS.Timeout | undefined;

  const pass = async () => {
    const asked = fullAsked;
    const full = asked > fullDone;
    // one process at a time; a lock left by a dead process expires, one this process could not release (Redis went
    // away during its pass) is its own: its passes never overlap
    const ttl = Math.max(10_000, every * 2);
    const got = await rt.redis.set(lock, token, 'PX', ttl, 'NX');
    if (got !== 'OK') {
      if ((await rt.redis.get(lock)) !== token) return;
      await rt.redis.pexpire(lock, ttl);
    }
    try {
      const result = await reconcile(rt, { full });
      if (full) fullDone = Math.max(fullDone, asked);
      const changed = result.notifications + result.acceptances + result.distributions + result.evaluations + result.expirations;
      if (changed > 0 || result.full) rt.log.info({ reconciled: result }, 'reconcile re-created jobs from PostgreSQL');
      opts.onPass?.(result);
    } finally {
      await rt.redis.eval(RELEASE, 1, lock, token).catch(() => undefined);
    }
  };

  const trigger = (full = false) => {
    if (full) fullAsked += 1;
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = pass()
      .catch((err: unknown) => {
        // PostgreSQL or Redis away: tried again within a second, so a recovery is reconciled at once
        rt.log.warn({ err: String(err) }, 'reconcile failed; tried again in a second');
        if (!stopped && !retry) {
          retry = setTimeout(() => {
            retry = undefined;
            trigger();
          }, Math.min(RETRY_MS, every));
          retry.unref();
        }
      })
      .finally(() => {
        running = null;
        if (again && !stopped) {
          again = false;
          trigger();
        }
      });
  };

  // and once more an interval later: an API process whose enqueue failed just before the reconnection commits after it.
  // A pass needs both of the process's connections, the runtime's (its lock) and the queue producers' (its enqueues),
  // and each reconnects on its own backoff: a pass runs when either is ready again, so the one that comes back last
  // starts it (a pass started when only the first was back fails, and waited a second for its retry).
  const onReady = () => {
    trigger(true);
    setTimeout(() => trigger(true), every).unref();
  };
  const connections = [...new Set([rt.redis, rt.queues.connection])];
  for (const c of connections) c.on('ready', onReady);
  const timer = setInterval(() => trigger(), every);
  timer.unref();
  trigger();
  return {
    trigger,
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearTimeout(retry);
      for (const c of connections) c.off('ready', onReady);
      await running;
    },
  };
}
