/**
 * The integrity check of every /chat and /tracking route (spec 5.4, D13):
 * `x-timestamp` (Unix seconds, within 300 s of now), `x-nonce` (at most 128
 * characters, not seen in the last 300 s on any API process: kept in Redis)
 * and `x-signature`, the hex HMAC-SHA256 of
 * `<timestamp>.<nonce>.<METHOD>.<target>.<raw body>` with INTEGRITY_SECRET,
 * where `<target>` is the request target as sent (path with `/api/v3`, and the
 * query string). Compared in constant time; the nonce is recorded only once
 * the signature is right, so nobody can burn another client's nonces.
 * Refusals: 401 `{status: false, msg, timestamp}`.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Runtime } from '../../domain/ports.js';
import type { AppState } from '../context.js';
import { INTEGRITY_MESSAGES, keyError } from '../../envelopes.js';

export const INTEGRITY_WINDOW_S = 300;
export const NONCE_MAX = 128;

export { INTEGRITY_MESSAGES };

const TIMESTAMP = /^[0-9]{1,12}$/;
const NONCE = /^[\x21-\x7e]{1,128}$/;
const SIGNATURE = /^[0-9a-fA-F]{64}$/;

/** The signature a client computes (D13); exported for the README example's test. */
export function integritySignature(secret: string, timestamp: string, nonce: string, method: string, target: string, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${nonce}.${method.toUpperCase()}.${target}.${rawBody}`).digest('hex');
}

export function nonceKey(queuePrefix: string, nonce: string): string {
  return `${queuePrefix}:integrity:nonce:${createHash('sha256').update(nonce).digest('hex')}`;
}

export function integrityCheck(rt: Pick<Runtime, 'config' | 'redis'>, now: () => number = Date.now): Middleware<AppState> {
  return async (ctx, next) => {
    const timestamp = ctx.get('x-timestamp');
    const nonce = ctx.get('x-nonce');
    const signature = ctx.get('x-signature');
    if (!timestamp || !nonce || !signature) throw keyError(401, INTEGRITY_MESSAGES.missing);
    if (!TIMESTAMP.test(timestamp)) throw keyError(401, INTEGRITY_MESSAGES.badTimestamp);
    if (Math.abs(now() / 1000 - Number(timestamp)) > INTEGRITY_WINDOW_S) throw keyError(401, INTEGRITY_MESSAGES.outOfWindow);
    if (!NONCE.test(nonce)) throw keyError(401, INTEGRITY_MESSAGES.badNonce);
    if (!SIGNATURE.test(signature)) throw keyError(401, INTEGRITY_MESSAGES.badSignature);
    const raw = (ctx.request as { rawBody?: string }).rawBody ?? '';
    const expected = Buffer.from(integritySignature(rt.config.integritySecret, timestamp, nonce, ctx.method, ctx.originalUrl, raw), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) throw keyError(401, INTEGRITY_MESSAGES.badSignature);
    // The nonce lives as long as its timestamp is accepted (up to INTEGRITY_WINDOW_S after it, which may be in the
    // future): a shorter life would let the same signed request be replayed once the nonce expired (D13).
    const lifeS = Math.max(1, Math.ceil(Number(timestamp) + INTEGRITY_WINDOW_S - now() / 1000) + 1);
    const fresh = await rt.redis.set(nonceKey(rt.config.queuePrefix, nonce), '1', 'EX', lifeS, 'NX');
    if (fresh !== 'OK') throw keyError(401, INTEGRITY_MESSAGES.replayed);
    await next();
  };
}
