/**
 * The operators' login limit (spec 8, D15): LOGIN_RATE_LIMIT attempts per
 * LOGIN_RATE_WINDOW_S per client IP, counted in Redis so it holds across API
 * processes. POST /users/login and the /admin/login form share one counter.
 */
import { LOGIN_MESSAGES } from '../../api/operators/login.js';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Runtime } from '../../domain/ports.js';
import { whenReady } from '../../queues/redis.js';
import type { AppContext } from '../context.js';
import { HttpError } from '../../envelopes.js';

export type LoginLimiter = (ctx: AppContext) => Promise<void>;

export function loginLimitKeyPrefix(queuePrefix: string): string {
  return `${queuePrefix}-login`;
}

export const RATE_LIMIT_ERROR = LOGIN_MESSAGES.rateLimited;

/** How long a login waits for a (re)connecting Redis before it fails. */
const REDIS_WAIT_MS = 2000;

/**
 * Counts one attempt for the caller's IP and sets the X-RateLimit-* headers;
 * throws the spec's 429 (7.3) when the limit is spent. When Redis is not
 * ready within a moment it throws (a 500) instead of queueing the request.
 */
export function loginLimiter(rt: Pick<Runtime, 'config' | 'redis'>): LoginLimiter {
  const { loginRateLimit: points, loginRateWindowS: duration, queuePrefix } = rt.config;
  const limiter = new RateLimiterRedis({
    storeClient: rt.redis,
    keyPrefix: loginLimitKeyPrefix(queuePrefix),
    points,
    duration,
  });
  const setHeaders = (ctx: AppContext, res: RateLimiterRes) => {
    ctx.set('X-RateLimit-Limit', String(points));
    ctx.set('X-RateLimit-Remaining', String(Math.max(0, res.remainingPoints)));
    ctx.set('X-RateLimit-Reset', String(Math.ceil((Date.now() + res.msBeforeNext) / 1000)));
  };
  return async (ctx) => {
    await whenReady(rt.redis, REDIS_WAIT_MS);
    try {
      setHeaders(ctx, await limiter.consume(ctx.ip));
    } catch (rej) {
      if (!(rej instanceof RateLimiterRes)) throw rej;
      setHeaders(ctx, rej);
      throw new HttpError(
        429,
        {
          error: RATE_LIMIT_ERROR,
          message: LOGIN_MESSAGES.limitExceeded(points),
          retryAfter: duration,
          timestamp: new Date().toISOString(),
        },
        { 'Retry-After': String(Math.ceil(rej.msBeforeNext / 1000)) },
      );
    }
  };
}
