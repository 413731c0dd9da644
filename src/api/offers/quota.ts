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
import { Coalescer } from '../../db/coalesce.js';
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

/** A generator's place in its quota: taken, or refused with the seconds until the minute frees one. */
type Take = { kind: 'taken' } | { kind: 'refused'; retryAfterS: number } | { kind: 'unchecked'; err: unknown };

interface Quota {
  limiter: RateLimiterRedis;
  /** the takes of concurrent requests of one generator, one increment for all (ISS32-2) */
  takes: Map<string, Coalescer<undefined, Take>>;
}

/** One limiter per quota size (a generator's own, or the default), made once per runtime. */
const quotas = new WeakMap<object, Map<number, Quota>>();

/** At most this many of one generator's requests share one increment; one increment of a generator in flight per process (ISS32-15). */
const TAKE_BATCH = { max: 256, concurrency: 1 };

/** The generators whose coalescers a process keeps before it starts again from none. */
const MAX_GENERATORS = 10_000;

function quotaFor(rt: Rt, points: number): Quota {
  let bySize = quotas.get(rt);
  if (!bySize) {
    bySize = new Map();
    quotas.set(rt, bySize);
  }
  let quota = bySize.get(points);
  if (!quota) {
    quota = { limiter: new RateLimiterRedis({ storeClient: rt.redis, keyPrefix: offerQuotaKeyPrefix(rt.config.queuePrefix), points, duration: 60 }), takes: new Map() };
    bySize.set(points, quota);
  }
  return quota;
}

/**
 * n places of one generator's quota in one increment (`consume(key, n)`, the same Lua script as one): the counter
 * ends where n increments of one would leave it, and so do the answers: when it passes the quota, the places
 * below it are taken in the order the requests came, the rest refused.
 */
async function takeMany(limiter: RateLimiterRedis, key: string, n: number): Promise<Take[]> {
  try {
    await limiter.consume(key, n);
    return Array.from({ length: n }, () => ({ kind: 'taken' }) as const);
  } catch (rej) {
    if (!(rej instanceof RateLimiterRes)) return Array.from({ length: n }, () => ({ kind: 'unchecked', err: rej }) as const);
    const free = Math.max(0, limiter.points - (rej.consumedPoints - n));
    const retryAfterS = Math.max(1, Math.ceil(rej.msBeforeNext / 1000));
    return Array.from({ length: n }, (_, i) => (i < free ? ({ kind: 'taken' } as const) : ({ kind: 'refused', retryAfterS } as const)));
  }
}

/**
 * Takes one offer of `generator`'s quota, or throws `quota.offers` (429 with Retry-After). The concurrent requests
 * of one generator in one process take their places together (one Redis command for all of them, src/db/coalesce.ts).
 */
export async function takeOfferQuota(rt: Rt, generator: Pick<ApiUser, 'id' | 'offersPerMinute'>): Promise<void> {
  const points = generator.offersPerMinute ?? rt.config.quotaOffersPerMin;
  if (rt.redis.status !== 'ready') {
    rt.log.warn({ redis: rt.redis.status }, 'offer quota skipped: Redis not ready');
    return;
  }
  const quota = quotaFor(rt, points);
  const key = String(generator.id);
  let takes = quota.takes.get(key);
  if (!takes) {
    if (quota.takes.size >= MAX_GENERATORS) quota.takes.clear(); // bounded: idle coalescers hold nothing
    takes = new Coalescer<undefined, Take>((batch) => takeMany(quota.limiter, key, batch.length), TAKE_BATCH);
    quota.takes.set(key, takes);
  }
  const take = await takes.submit(undefined);
  if (take.kind === 'refused') throw new DomainError('quota.offers', { limit: points, retryAfterS: take.retryAfterS });
  if (take.kind === 'unchecked') rt.log.warn({ err: take.err }, 'offer quota skipped: Redis failed');
}

/** The 429 an operation that creates an offer declares. */
export const quotaExceeded: ResponseDecl = {
  ...controller('The generator’s offer quota per minute is spent (D24: offersPerMinute, QUOTA_OFFERS_PER_MIN)', { quota: QUOTA_MESSAGES.offers }),
  headers: { 'Retry-After': { description: 'seconds until the quota frees a place', schema: { type: 'integer', minimum: 1 } } },
};
