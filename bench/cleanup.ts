/** What a bench leaves in the shared Redis: every key under its scratch prefix, deleted at its end. */
import { keyspaces, type Redis } from '../src/queues/redis.js';

/** Deletes every key under `prefix` (on a cluster, on each master: each owns part of the keyspace). */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  for (const node of keyspaces(redis)) {
    for (let cursor = '0'; ; ) {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      // one key per command: a cluster refuses a DEL whose keys lie in different slots
      if (keys.length) await keys.reduce((p, k) => p.unlink(k), node.pipeline()).exec();
      if ((cursor = next) === '0') break;
    }
  }
}
