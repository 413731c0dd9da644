/**
 * The customer's attempts per client IP (D14, decisions "Tracking abuse"):
 * code requests and code checks, through the API and the customer page
 * alike, at most TRACKING_LIMIT_IP per TRACKING_LIMIT_WINDOW_S, counted in
 * Redis so the limit holds across API processes. The per-expediente limit
 * and the per-phone daily cap (codes.ts) protect one service and one phone;
 * this one stops a single client from walking many expedientes (sending
 * SMS to their customers, guessing codes, filling tracking_request).
 * With Redis away the attempt goes on (logged): the other limits still hold.
 */
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Runtime } from '../../domain/ports.js';
import { DomainError } from '../../domain/errors.js';
import { limitKey } from '../../auth/clientAddress.js';

export type TrackingLimiter = (ip: string) => Promise<void>;

export function trackingLimitKeyPrefix(queuePrefix: string): string {
  return `${queuePrefix}-tracking`;
}

export function trackingLimiter(rt: Pick<Runtime, 'config' | 'redis' | 'log'>): TrackingLimiter {
  const { trackingLimitIp: points, trackingLimitWindowS: duration, queuePrefix } = rt.config;
  const limiter = new RateLimiterRedis({ storeClient: rt.redis, keyPrefix: trackingLimitKeyPrefix(queuePrefix), points, duration });
  return async (ip) => {
    if (rt.redis.status !== 'ready') {
      rt.log.warn({ redis: rt.redis.status }, 'tracking attempt limit skipped: Redis not ready');
      return;
    }
    try {
      await limiter.consume(limitKey(ip)); // D24: the address's bucket, hashed
    } catch (rej) {
      if (rej instanceof RateLimiterRes) throw new DomainError('tracking.too-many-attempts', { retryAfterS: Math.max(1, Math.ceil(rej.msBeforeNext / 1000)) });
      rt.log.warn({ err: rej }, 'tracking attempt limit skipped: Redis failed');
    }
  };
}

const limiters = new WeakMap<object, TrackingLimiter>();

/** One attempt of `ip` against the runtime's limiter (made once per runtime). */
export function trackingAttempt(rt: Pick<Runtime, 'config' | 'redis' | 'log'>, ip: string): Promise<void> {
  let attempt = limiters.get(rt);
  if (!attempt) {
    attempt = trackingLimiter(rt);
    limiters.set(rt, attempt);
  }
  return attempt(ip);
}
