import { Redis, type RedisOptions } from 'ioredis';

/**
 * A Redis connection. BullMQ workers and subscribers need
 * `maxRetriesPerRequest: null`; the runtime's command connection fails fast
 * instead (src/main/runtime.ts).
 */
export function createRedis(url: string, opts: RedisOptions = {}): Redis {
  return new Redis(url, { lazyConnect: false, enableReadyCheck: true, ...opts });
}

export type { Redis };

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
