import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/**
 * A Redis connection. BullMQ workers and subscribers need
 * `maxRetriesPerRequest: null`; the runtime's command connection fails fast
 * instead (src/main/runtime.ts).
 */
export function createRedis(url: string, opts: RedisOptions = {}): Redis {
  return new Redis(url, { lazyConnect: false, enableReadyCheck: true, ...opts });
}

export type { Redis };

/**
 * D21 (issue 30): the options of a process's command connection (the runtime's: requests, producers, limits), so
 * that no caller waits for a Redis that is away: a command is refused at once while the connection is down (no
 * offline queue) and fails after `commandTimeoutMs` when Redis stops answering (0: no limit). Not for BullMQ
 * workers and subscribers, which wait for Redis by design (`maxRetriesPerRequest: null`).
 */
export function failFastOptions(commandTimeoutMs: number): RedisOptions {
  return { enableOfflineQueue: false, maxRetriesPerRequest: 1, ...(commandTimeoutMs > 0 ? { commandTimeout: commandTimeoutMs } : {}) };
}

/** Resolves once `redis` is ready (at once when it is); rejects after `ms` so a request never waits on a Redis that is down. */
export function whenReady(redis: Redis, ms: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      reject(new Error(`Redis not ready after ${ms} ms (${redis.status})`));
    }, ms);
    redis.once('ready', onReady);
  });
}

/**
 * D21: a Redis that stops answering (a partition, a frozen server) keeps its connection 'ready', so every command
 * would wait for its timeout in turn. Once a second this PINGs `redis`; a PING not answered within `timeoutMs`
 * drops the connection (ioredis reconnects), so that, until Redis answers again, commands are refused at once
 * (no offline queue, see failFastOptions). Returns the stop.
 */
export function watchRedis(redis: Redis, o: { timeoutMs: number; everyMs?: number; log: Logger }): () => void {
  let probing = false;
  const timer = setInterval(() => {
    if (probing || redis.status !== 'ready') return;
    probing = true;
    let late: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'late'>((resolve) => {
      late = setTimeout(() => resolve('late'), o.timeoutMs);
    });
    void Promise.race([redis.ping().then(() => 'ok' as const, (err: unknown) => (/timed out/i.test(String(err)) ? ('late' as const) : ('ok' as const))), timedOut])
      .then((outcome) => {
        if (outcome === 'late' && redis.status === 'ready') {
          o.log.warn({ timeoutMs: o.timeoutMs }, 'Redis stopped answering: connection dropped, reconnecting');
          redis.disconnect(true);
        }
      })
      .finally(() => {
        clearTimeout(late);
        probing = false;
      });
  }, o.everyMs ?? 1000);
  timer.unref();
  return () => clearInterval(timer);
}
