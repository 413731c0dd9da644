/**
 * The operators' login limits (spec 8, D15, D24; decisions LIM-3):
 * - per client address: LOGIN_RATE_LIMIT attempts (every attempt, as spec 8
 *   says) per LOGIN_RATE_WINDOW_S;
 * - per account: LOGIN_ACCOUNT_LIMIT failed attempts per username in the same
 *   window, whatever the address, so spreading guesses over many addresses
 *   does not help; over it the account answers 429 (even to the right
 *   password) until the window ends.
 * Counted in Redis so they hold across API processes; POST /users/login and the
 * /admin/login form share the counters. Keys are hashed (the address's bucket
 * of src/auth/clientAddress.ts, a SHA-256 of the username).
 *
 * Redis away (D21): logins fail closed, 503 `SERVICIO TEMPORALMENTE NO
 * DISPONIBLE` with Retry-After, after waiting a moment for a reconnecting Redis.
 */
import { createHash } from 'node:crypto';
import { LOGIN_MESSAGES } from '../../api/operators/login.js';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Runtime } from '../../domain/ports.js';
import { whenReady } from '../../queues/redis.js';
import { limitKey } from '../../auth/clientAddress.js';
import type { AppContext } from '../context.js';
import { HttpError } from '../../envelopes.js';

export interface LoginLimiter {
  /** counts one attempt of the caller's address; throws the spec's 429 when spent (503 when Redis is away) */
  attempt(ctx: AppContext): Promise<void>;
  /** throws the 429 when `username` is over its failures (503 when Redis is away) */
  account(username: string): Promise<void>;
  /** counts a failed attempt against `username` */
  failed(username: string): Promise<void>;
}

export function loginLimitKeyPrefix(queuePrefix: string): string {
  return `${queuePrefix}-login`;
}

export const RATE_LIMIT_ERROR = LOGIN_MESSAGES.rateLimited;

/** How long a login waits for a (re)connecting Redis before it answers 503. */
const REDIS_WAIT_MS = 2000;
/** Retry-After of the 503. */
const RETRY_AFTER_S = 5;

/** D21: the login's 503 in its own envelope (the controller's). */
export function loginUnavailable(): HttpError {
  return new HttpError(503, { status: false, msg: LOGIN_MESSAGES.unavailable }, { 'Retry-After': String(RETRY_AFTER_S) });
}

const accountKey = (username: string) => createHash('sha256').update(`operator\0${username}`).digest('hex').slice(0, 40);

function tooMany(message: string, windowS: number, msBeforeNext: number): HttpError {
  return new HttpError(
    429,
    { error: RATE_LIMIT_ERROR, message, retryAfter: windowS, timestamp: new Date().toISOString() },
    { 'Retry-After': String(Math.max(1, Math.ceil(msBeforeNext / 1000))) },
  );
}

export function loginLimiter(rt: Pick<Runtime, 'config' | 'redis'>): LoginLimiter {
  const { loginRateLimit: points, loginRateWindowS: duration, loginAccountLimit, queuePrefix } = rt.config;
  const prefix = loginLimitKeyPrefix(queuePrefix);
  const byIp = new RateLimiterRedis({ storeClient: rt.redis, keyPrefix: prefix, points, duration });
  const byAccount = new RateLimiterRedis({ storeClient: rt.redis, keyPrefix: `${prefix}-account`, points: loginAccountLimit, duration });
  const setHeaders = (ctx: AppContext, res: RateLimiterRes) => {
    ctx.set('X-RateLimit-Limit', String(points));
    ctx.set('X-RateLimit-Remaining', String(Math.max(0, res.remainingPoints)));
    ctx.set('X-RateLimit-Reset', String(Math.ceil((Date.now() + res.msBeforeNext) / 1000)));
  };
  /** Redis, or the 503: a login is never let through unlimited. */
  const ready = () => whenReady(rt.redis, REDIS_WAIT_MS).catch(() => Promise.reject(loginUnavailable()));
  const closed = (err: unknown): never => {
    throw err instanceof HttpError ? err : loginUnavailable();
  };
  return {
    async attempt(ctx) {
      await ready();
      try {
        setHeaders(ctx, await byIp.consume(limitKey(ctx.ip)));
      } catch (rej) {
        if (!(rej instanceof RateLimiterRes)) return closed(rej);
        setHeaders(ctx, rej);
        throw tooMany(LOGIN_MESSAGES.limitExceeded(points), duration, rej.msBeforeNext);
      }
    },
    async account(username) {
      await ready();
      const res = await byAccount.get(accountKey(username)).catch(closed);
      if (res && res.consumedPoints >= loginAccountLimit) throw tooMany(LOGIN_MESSAGES.accountLimited(loginAccountLimit), duration, res.msBeforeNext);
    },
    async failed(username) {
      await byAccount.penalty(accountKey(username), 1).catch(closed);
    },
  };
}
