/**
 * A short-lived cache of verified API credentials (issue 12 item 5): a request
 * whose Basic pair or API key was verified in the last AUTH_CACHE_TTL_MS
 * (5 s) costs no ORM lookup. Entries are keyed by an HMAC of the presented
 * credentials under a random per-process key (never the plain password or key)
 * and hold the API user as it was then, so a status change or a new password
 * takes effect within the TTL on every process; provisioning publishes an
 * invalidation on Redis that empties every process's cache at once.
 *
 * An entry is the verified entity itself, handed to every request of this
 * process that presents the same credentials until it expires: a hit costs no
 * EntityManager and no copy (docs/decisions.md AUC-20). Nothing writes to an
 * authenticated user (provisioning changes users through its own lookups), so
 * the requests that share it only read it.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { createRedis, type Redis, type RedisTarget } from '../queues/redis.js';
import type { ApiUser } from '../db/entities/index.js';

export type CredentialScheme = 'basic' | 'key';

export class CredentialCache {
  private readonly secret = randomBytes(32);
  private readonly entries = new Map<string, { user: ApiUser; expires: number }>();

  constructor(
    readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  private id(scheme: CredentialScheme, credential: string): string {
    return createHmac('sha256', this.secret).update(`${scheme}\0${credential}`).digest('base64');
  }

  /** The cached user for these credentials, or null (absent, expired, or caching off). */
  get(scheme: CredentialScheme, credential: string): ApiUser | null {
    if (this.ttlMs <= 0) return null;
    const key = this.id(scheme, credential);
    const hit = this.entries.get(key);
    if (!hit) return null;
    if (hit.expires <= Date.now()) {
      this.entries.delete(key);
      return null;
    }
    return hit.user;
  }

  set(scheme: CredentialScheme, credential: string, user: ApiUser): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear(); // bounded: a burst of distinct credentials cannot grow it
    this.entries.set(this.id(scheme, credential), { user, expires: Date.now() + this.ttlMs });
  }

  clear(): void {
    this.entries.clear();
  }
}

export const authInvalidationChannel = (prefix: string): string => `${prefix}-auth-invalidate`;

/** Every process's cache is emptied (after provisioning changed API users). */
export async function publishAuthInvalidation(redis: Redis, prefix: string): Promise<void> {
  await redis.publish(authInvalidationChannel(prefix), 'flush');
}

/**
 * Empties `cache` whenever an invalidation is published; returns the unsubscribe. The subscription is not waited
 * for: a process started while Redis is away must still start and answer (GET /health 503), so ioredis sends it
 * once connected, and again after every reconnection.
 */
export function subscribeAuthInvalidation(target: RedisTarget, prefix: string, cache: CredentialCache, log: Logger): () => Promise<void> {
  const sub = createRedis(target, { maxRetriesPerRequest: null });
  sub.on('error', (err) => log.warn({ err }, 'auth invalidation subscriber error'));
  sub.on('message', () => cache.clear());
  // A lost subscription could keep a revoked credential up to the TTL only; clear on every reconnection too.
  sub.on('ready', () => cache.clear());
  sub.subscribe(authInvalidationChannel(prefix)).catch((err: unknown) => log.warn({ err }, 'auth invalidation subscription failed'));
  return async () => {
    sub.disconnect();
  };
}
