/**
 * Sends one state or novelty notification (D12) over HTTP: a PUT with a
 * timeout, no redirects and no retries of its own (the queue retries), the
 * receiver's x-apikey when it has one (as in 6.1) and, when its profile has a
 * webhookSecret, `x-timestamp` + `x-signature` = hex HMAC-SHA256 of
 * `<timestamp>.<raw body>` (as D5). Never throws: a timeout or a connection
 * error is an answer without status.
 */
import { createHmac } from 'node:crypto';
import got from 'got';

export interface OutgoingRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export interface ReceiverSecrets {
  apiKey?: string | null;
  webhookSecret?: string | null;
}

export interface SendResult {
  statusCode: number | null;
  latencyMs: number;
  replyBody: string | null;
  error: string | null;
  /** from a Retry-After header on a 429 or 503, capped at MAX_RETRY_AFTER_MS */
  retryAfterMs: number | null;
}

const REPLY_LIMIT = 2000;
export const MAX_RETRY_AFTER_MS = 3_600_000;

export function sign(secret: string, timestamp: string, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
}

/** Retry-After as delta-seconds or an HTTP date, in ms from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  const ms = /^\d+$/.test(v) ? Number(v) * 1000 : Date.parse(v) - now;
  if (!Number.isFinite(ms)) return null;
  return Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS);
}

export async function sendNotification(req: OutgoingRequest, secrets: ReceiverSecrets, timeoutMs: number): Promise<SendResult> {
  const raw = JSON.stringify(req.body);
  const headers: Record<string, string> = { ...req.headers };
  if (secrets.apiKey) headers['x-apikey'] = secrets.apiKey;
  if (secrets.webhookSecret) {
    const timestamp = String(Math.floor(Date.now() / 1000));
    headers['x-timestamp'] = timestamp;
    headers['x-signature'] = sign(secrets.webhookSecret, timestamp, raw);
  }
  const started = performance.now();
  try {
    const res = await got(req.url, {
      method: req.method as 'PUT',
      body: raw,
      headers,
      timeout: { request: timeoutMs },
      retry: { limit: 0 },
      followRedirect: false,
      throwHttpErrors: false,
      responseType: 'text',
    });
    const header = res.headers['retry-after'];
    return {
      statusCode: res.statusCode,
      latencyMs: Math.round(performance.now() - started),
      replyBody: res.body.slice(0, REPLY_LIMIT),
      error: null,
      retryAfterMs: res.statusCode === 429 || res.statusCode === 503 ? parseRetryAfter(header) : null,
    };
  } catch (err) {
    return {
      statusCode: null,
      latencyMs: Math.round(performance.now() - started),
      replyBody: null,
      error: (err as Error).message.slice(0, REPLY_LIMIT),
      retryAfterMs: null,
    };
  }
}
