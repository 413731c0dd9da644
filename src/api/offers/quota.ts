/**
 * The offer quota per generator (D24, issue 29 item 2): at most
 * `offersPerMinute` (provisioning; else QUOTA_OFFERS_PER_MIN, 600) offers a
 * minute per generator, POST /oferta and POST /asignacion-directa together
 * (both create an offer), counted in Redis with rate-limiter-flexible so the
 * quota holds across API processes. Beyond it the operation answers 429 in
 * its envelope with Retry-After (the seconds until the minute frees a
 * place). One generator cannot fill the queues for everyone. With Redis away
 * the offer goes on (logged), as the other limits do.
 */
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { ApiUser } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import type { Runtime } from '../../domain/ports.js';
import type { ResponseDecl } from '../operation.js';
import { controller } from '../document/responses.js';

export const QUOTA_MESSAGES = {
  offers: 'SE SUPERÓ LA CUOTA DE OFERTAS POR MINUTO DEL GENERADOR; REINTENTE CUANDO INDIQUE Retry-After',
} as const;

/** The quota's Redis keys: `<QUEUE_PREFIX>-quota-offers:<api user id>` (a hash-tag-free prefix like the other limiters'). */
export function offerQuotaKeyPrefix(queuePrefix: string): string {
  return `${queuePrefix}-quota-offers`;
}

type Rt = Pick<Runtime, 'config' | 'redis' | 'log'>;

/** One limiter per quota size (a generator's own, or the default), made once per runtime. */
const limiters = new WeakMap<object, Map<number, RateLimiterRedis>>();

function limiterFor(rt: Rt, points: number): RateLimiterRedis {
  let bySize = limiters.get(rt);
  if (!bySize) {
    bySize = new Map();
    limiters.set(rt, bySize);
  }
  let limiter = bySize.get(points);
  if (!limiter) {
    limiter = new RateLimiterRedis({ storeClient: rt.redis, keyPrefix: offerQuotaKeyPrefix(rt.config.queuePrefix), points, duration: 60 });
    bySize.set(points, limiter);
  }
  return limiter;
}

/** Takes one offer of `generator`'s quota, or throws `quota.offers` (429 with Retry-After). */
export async function takeOfferQuota(rt: Rt, generator: Pick<ApiUser, 'id' | 'offersPerMinute'>): Promise<void> {
  const points = generator.offersPerMinute ?? rt.config.quotaOffersPerMin;
  if (rt.redis.status !== 'ready') {
    rt.log.warn({ redis: rt.redis.status }, 'offer quota skipped: Redis not ready');
    return;
  }
  try {
    await limiterFor(rt, points).consume(String(generator.id));
  } catch (rej) {
    if (rej instanceof RateLimiterRes) {
      throw new DomainError('quota.offers', { limit: points, retryAfterS: Math.max(1, Math.ceil(rej.msBeforeNext / 1000)) });
    }
    rt.log.warn({ err: rej }, 'offer quota skipped: Redis failed');
  }
}

/** The 429 an operation that creates an offer declares. */
export const quotaExceeded: ResponseDecl = {
  ...controller('The generator’s offer quota per minute is spent (D24: offersPerMinute, QUOTA_OFFERS_PER_MIN)', { quota: QUOTA_MESSAGES.offers }),
  headers: { 'Retry-After': { description: 'seconds until the quota frees a place', schema: { type: 'integer', minimum: 1 } } },
};
