import { Redis, type RedisOptions } from 'ioredis';

/**
 * A Redis connection. BullMQ workers need `maxRetriesPerRequest: null`;
 * request-path clients fail fast instead.
 */
export function createRedis(url: string, opts: RedisOptions = {}): Redis {
  return new Redis(url, { lazyConnect: false, enableReadyCheck: true, ...opts });
}

export type { Redis };
