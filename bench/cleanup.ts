/** What a bench leaves in the shared Redis: every key under its scratch prefix, deleted at its end. */
import type { Redis } from 'ioredis';

export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  for (let cursor = '0'; ; ) {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length) await redis.del(...keys);
    if ((cursor = next) === '0') break;
  }
}
