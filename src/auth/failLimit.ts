/**
 * Failed authentications are limited (D19, D24; decisions "Hardening: security"
 * and LIM-1): wrong Basic passwords and unknown API keys are counted per client
 * address (AUTH_FAIL_LIMIT_IP), per username or key (AUTH_FAIL_LIMIT_ID) and per
 * username or key from that address (the same limit) in a window of
 * AUTH_FAIL_WINDOW_S, in Redis (rate-limiter-flexible, as the login limit), so
 * the limits hold across API processes. Every key is hashed (src/auth/clientAddress.ts
 * `limitKey`, a SHA-256 of the identity): its length never depends on the request.
 *
 * - The address's limit never blocks a credential that is right (D24): a client
 *   behind a proxy that shares its address with strangers still gets in. Over
 *   it, a wrong credential is counted and answered 429 instead of 401.
 * - The identity's limit is checked before the credentials: over it, even the
 *   right password is answered 429, unless the client address authenticated as
 *   that identity in the window (trusted), so an attacker spending a tenant's
 *   identity limit from elsewhere does not lock that tenant's own clients out.
 * - A trusted address is held to its own failures for that identity (the pair's
 *   count, same limit): guesses from the tenant's own address stay bounded even
 *   though the address limit lets right credentials through.
 *
 * Redis away (D21): the check is skipped (logged); the lookups still run.
 *
 * Redis memory: a failure of an unknown identity writes the address's and the identity's counts
 * (as before D24), only the address's once the address is blocked; a known identity's adds its
 * pair count. So one address writes at most AUTH_FAIL_LIMIT_IP identity keys per window.
 *
 * Cost: one round trip (an MGET of the three counts and the trust marker) before every Basic
 * or key check, shared by the checks that start while two such reads are in flight (ISS32-2:
 * one MGET for all of them); a failure adds the three counts; a success adds nothing but,
 * once per window and client address, an unawaited write of the trust marker.
 */
import { createHash } from 'node:crypto';
import { RateLimiterRedis, type RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from 'pino';
import type { Config } from '../../config/index.js';
import { getMany, type Redis } from '../queues/redis.js';
import { HttpError, keyError, systemBody } from '../envelopes.js';
import { limitKey } from './clientAddress.js';
import { Coalescer } from '../db/coalesce.js';

export type AuthScheme = 'basic' | 'key';

export const AUTH_FAIL_MESSAGE = 'Demasiados intentos de autenticación fallidos. Intente de nuevo más tarde.';

/** One authentication attempt of one client: report its outcome. */
export interface AuthAttempt {
  /**
   * counts the failure; returns the X-RateLimit-* headers to send with the 401, or throws the
   * scheme's 429 when the client address was already over its limit. `known`: the identity exists
   * (a wrong password of a real user); an unknown one (no such user, any wrong key) is not worth a
   * count per address, nor, once the address is blocked, per identity (LIM-1: a blocked address
   * writes one key, however many names it tries)
   */
  failed(known: boolean): Promise<Record<string, string>>;
  succeeded(): void;
}

/** The limit bound to one client address (a request or a socket upgrade). */
export interface AuthGuard {
  /** throws the scheme's 429 when the identity is blocked for this client (the address's limit waits for the outcome) */
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

/** At most this many attempts share one read; one read in flight per process, the attempts meanwhile wait for the next (ISS32-15). */
const READ_BATCH = { max: 64, concurrency: 1 };

type Deps = { config: Pick<Config, 'authFailLimitIp' | 'authFailLimitId' | 'authFailWindowS' | 'queuePrefix'>; redis: Redis; log: Logger };

export function authFailLimit({ config, redis, log }: Deps): AuthFailLimit {
  const prefix = authFailKeyPrefix(config.queuePrefix);
  const duration = config.authFailWindowS;
  const byIp = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}-ip`, points: config.authFailLimitIp, duration });
  const byId = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}-id`, points: config.authFailLimitId, duration });
  const byPair = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}-pair`, points: config.authFailLimitId, duration });
  const trustKey = (id: string, ip: string) => `${prefix}-ok:${id}:${ip}`;
  // The reads of concurrent attempts go together, one MGET for all (ISS32-2): with the quota's increment it was one of
  // the two Redis commands each POST /oferta sent on its own.
  const reads = new Coalescer<string[], Array<string | null>>(async (batch) => {
    const replies = await getMany(redis, batch.flat());
    let at = 0;
    return batch.map((keys) => replies.slice(at, (at += keys.length)));
  }, READ_BATCH);

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

  const unchecked: AuthAttempt = { failed: async (_known: boolean) => ({}), succeeded: () => undefined };

  return {
    forClient(address) {
      const ip = limitKey(address);
      return {
        async begin(scheme, identity) {
          // Redis away (D21): authenticate without the limit rather than refuse every caller (logged).
          if (redis.status !== 'ready') {
            log.warn({ redis: redis.status }, 'authentication failure limit skipped: Redis not ready');
            return unchecked;
          }
          const id = identityKey(scheme, identity);
          const pair = `${id}:${ip}`;
          let replies: Array<string | null>;
          try {
            // One command: a pipeline object per request cost about 8 % of the API process's CPU under load
            // (on a Redis Cluster, whose slots the keys do not share, one GET each: getMany); concurrent checks share it.
            replies = await reads.submit([byIp.getKey(ip), byId.getKey(id), byPair.getKey(pair), trustKey(id, ip)]);
          } catch (err) {
            log.warn({ err }, 'authentication failure limit skipped: Redis failed');
            return unchecked;
          }
          const [ipRes, idRes, pairRes, okRes] = replies;
          const ipBlocked = Number(ipRes ?? 0) >= byIp.points;
          const idFails = Number(idRes ?? 0);
          const pairFails = Number(pairRes ?? 0);
          const trusted = okRes !== null;
          if ((idFails >= byId.points && !trusted) || pairFails >= byPair.points) {
            log.warn({ ip: address, scheme, limit: 'identity' }, 'authentication refused: too many failures');
            throw trusted ? await tooMany(scheme, byPair, pair) : await tooMany(scheme, byId, id);
          }
          return {
            async failed(known) {
              let counts: RateLimiterRes[];
              try {
                counts = await Promise.all([
                  byIp.penalty(ip, 1),
                  ...(known || !ipBlocked ? [byId.penalty(id, 1)] : []),
                  ...(known ? [byPair.penalty(pair, 1)] : []),
                ]);
              } catch (err) {
                log.warn({ err }, 'authentication failure not counted: Redis failed');
                return {};
              }
              if (ipBlocked) {
                log.warn({ ip: address, scheme, limit: 'ip' }, 'authentication refused: too many failures');
                throw await tooMany(scheme, byIp, ip);
              }
              // the tighter of the limits
              // the tighter of the limits (a pair never counts more than its identity: same headers known or not)
              const [points, res] = [[byIp.points, counts[0]] as const, [byId.points, counts[1]] as const].reduce((x, y) =>
                y[1].remainingPoints < x[1].remainingPoints ? y : x,
              );
              return headers(points, res);
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
