/**
 * Failed authentications are limited (D19; decisions "Hardening: security"):
 * wrong Basic passwords and unknown API keys are counted per client IP
 * (AUTH_FAIL_LIMIT_IP) and per username or key (AUTH_FAIL_LIMIT_ID) in a
 * window of AUTH_FAIL_WINDOW_S, in Redis (rate-limiter-flexible, as the login
 * limit), so the limits hold across API processes. Over a limit the attempt is
 * answered 429 in the failing scheme's envelope before the credentials are
 * checked, so a right password does not pass either.
 *
 * A client IP that authenticated as an identity in the window is trusted for
 * it: the identity's limit does not block it (the IP limit still does), so an
 * attacker spending a tenant's identity limit from elsewhere does not lock
 * that tenant's own clients out.
 *
 * Cost: one round trip (an MGET of the two counts and the trust marker) before every Basic
 * or key check; a failure adds the two counts; a success adds nothing but,
 * once per window and client IP, an unawaited write of the trust marker.
 */
import { createHash } from 'node:crypto';
import { RateLimiterRedis, type RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from 'pino';
import type { Config } from '../../config/index.js';
import { getMany, type Redis } from '../queues/redis.js';
import { HttpError, keyError, systemBody } from '../envelopes.js';

export type AuthScheme = 'basic' | 'key';

export const AUTH_FAIL_MESSAGE = 'Demasiados intentos de autenticación fallidos. Intente de nuevo más tarde.';

/** One authentication attempt of one client: report its outcome. */
export interface AuthAttempt {
  /** counts the failure; returns the X-RateLimit-* headers to send with the 401 */
  failed(): Promise<Record<string, string>>;
  succeeded(): void;
}

/** The limit bound to one client IP (a request or a socket upgrade). */
export interface AuthGuard {
  /** throws the scheme's 429 when the IP or the identity is blocked for this client */
  begin(scheme: AuthScheme, identity: string): Promise<AuthAttempt>;
}

export interface AuthFailLimit {
  forClient(ip: string): AuthGuard;
}

export function authFailKeyPrefix(queuePrefix: string): string {
  return `${queuePrefix}-authfail`;
}

/** Usernames and keys are stored hashed: an API key never lands in Redis. */
function identityKey(scheme: AuthScheme, identity: string): string {
  return createHash('sha256').update(`${scheme}\0${identity}`).digest('hex').slice(0, 40);
}

type Deps = { config: Pick<Config, 'authFailLimitIp' | 'authFailLimitId' | 'authFailWindowS' | 'queuePrefix'>; redis: Redis; log: Logger };

export function authFailLimit({ config, redis, log }: Deps): AuthFailLimit {
  const prefix = authFailKeyPrefix(config.queuePrefix);
  const duration = config.authFailWindowS;
  const byIp = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}-ip`, points: config.authFailLimitIp, duration });
  const byId = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}-id`, points: config.authFailLimitId, duration });
  const trustKey = (id: string, ip: string) => `${prefix}-ok:${id}:${ip}`;

  const headers = (points: number, res: RateLimiterRes): Record<string, string> => ({
    'X-RateLimit-Limit': String(points),
    'X-RateLimit-Remaining': String(Math.max(0, res.remainingPoints)),
    'X-RateLimit-Reset': String(Math.ceil((Date.now() + res.msBeforeNext) / 1000)),
  });

  const tooMany = async (scheme: AuthScheme, limiter: RateLimiterRedis, key: string): Promise<HttpError> => {
    const res = await limiter.get(key);
    const msLeft = Math.max(1000, res?.msBeforeNext ?? duration * 1000);
    const h = {
      'X-RateLimit-Limit': String(limiter.points),
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(Math.ceil((Date.now() + msLeft) / 1000)),
      'Retry-After': String(Math.ceil(msLeft / 1000)),
    };
    return scheme === 'basic' ? new HttpError(429, systemBody(AUTH_FAIL_MESSAGE), h) : withHeaders(keyError(429, AUTH_FAIL_MESSAGE), h);
  };

  const unchecked: AuthAttempt = { failed: async () => ({}), succeeded: () => undefined };

  return {
    forClient(ip) {
      return {
        async begin(scheme, identity) {
          // Redis away: authenticate without the limit rather than refuse every caller (logged).
          if (redis.status !== 'ready') {
            log.warn({ redis: redis.status }, 'authentication failure limit skipped: Redis not ready');
            return unchecked;
          }
          const id = identityKey(scheme, identity);
          let replies: Array<string | null>;
          try {
            // One command: a pipeline object per request cost about 8 % of the API process's CPU under load
            // (on a Redis Cluster, whose slots the three keys do not share, one GET each: getMany).
            replies = await getMany(redis, [byIp.getKey(ip), byId.getKey(id), trustKey(id, ip)]);
          } catch (err) {
            log.warn({ err }, 'authentication failure limit skipped: Redis failed');
            return unchecked;
          }
          const [ipRes, idRes, okRes] = replies;
          const ipFails = Number(ipRes ?? 0);
          const idFails = Number(idRes ?? 0);
          const trusted = okRes !== null;
          if (ipFails >= byIp.points || (idFails >= byId.points && !trusted)) {
            const byClient = ipFails >= byIp.points;
            log.warn({ ip, scheme, limit: byClient ? 'ip' : 'identity' }, 'authentication refused: too many failures');
            throw byClient ? await tooMany(scheme, byIp, ip) : await tooMany(scheme, byId, id);
          }
          return {
            async failed() {
              const [a, b] = await Promise.all([byIp.penalty(ip, 1), byId.penalty(id, 1)]);
              // the tighter of the two limits
              return a.remainingPoints < b.remainingPoints ? headers(byIp.points, a) : headers(byId.points, b);
            },
            succeeded() {
              if (trusted) return;
              redis
                .set(trustKey(id, ip), '1', 'EX', duration)
                .catch((err: unknown) => log.warn({ err }, 'authentication trust marker not written'));
            },
          };
        },
      };
    },
  };
}

function withHeaders(err: HttpError, h: Record<string, string>): HttpError {
  return new HttpError(err.status, err.body, { ...err.headers, ...h });
}
