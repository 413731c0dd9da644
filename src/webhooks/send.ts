/**
 * One outgoing webhook request, for every kind of delivery (STYLE 10): the
 * JSON body sent as the exact bytes that are signed, a timeout, no redirects
 * and no retries inside the call (whether to try again is the caller's: never
 * for the acceptance, D5, and the push, D8; through the queue for state
 * notifications, D12). What the peer answered, or why it did not, comes back
 * as a value, never thrown.
 */
import got, { RequestError, type Method, type Response } from 'got';
import { createHmac } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { config } from '../../config/index.js';
import { configTargets, guardedLookup, refusedUrl, type TargetPolicy } from './targets.js';
import { storableText } from '../text.js';

/** How much of a reply is kept in memory (a late acceptance relays it, D4c); a row stores less (REPLY_STORED_CHARS). */
/** At most this much of a reply is read; the rest is never buffered (a peer cannot grow our memory). */
const REPLY_READ_BYTES = 64 * 1024;

/** The longest wait a Retry-After may ask for. */
export const MAX_RETRY_AFTER_MS = 3_600_000;

/** Set from the receiver's profile at every try, never taken from a stored request. */
const RECEIVER_HEADERS = ['x-apikey', 'x-timestamp', 'x-signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature'];

export interface WebhookRequest {
  /** PUT unless said otherwise */
  method?: string;
  url: string;
  body: Record<string, unknown>;
  /** headers besides Content-Type and the receiver's, e.g. x-event-id (D12) */
  headers?: Record<string, string>;
  /** sent as x-apikey when present (6.1) */
  apiKey?: string | null;
  /** when present: x-timestamp and x-signature (D5), and the Standard Webhooks headers (D17) */
  secret?: string | null;
  /** the event's id: `webhook-id` (D17), stable across retries and equal to x-event-id when that is sent */
  eventId?: string | null;
}

export interface WebhookOutcome {
  /** a 2xx reply */
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  /** the reply body (up to 64 KB), null when none arrived */
  replyBody: string | null;
  /** the reply's Retry-After in ms from now (capped at MAX_RETRY_AFTER_MS), null when absent or unreadable */
  retryAfterMs: number | null;
  /** why no reply arrived (timeout, refused...) */
  error: string | null;
  /** the headers sent, the API key masked, for the delivery row */
  sentHeaders: Record<string, string>;
}

/** Hex HMAC-SHA256 of `<timestamp>.<raw body>` (D5). */
export function sign(secret: string, timestamp: string, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex');
}

/**
 * The Standard Webhooks signing key (D17): the base64 decoding of what follows
 * `whsec_`, otherwise the secret's UTF-8 bytes.
 */
export function standardKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
}

/** `v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<raw body>` (Standard Webhooks, D17). */
export function standardSignature(secret: string, id: string, timestamp: string, rawBody: string): string {
  return `v1,${createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.${rawBody}`, 'utf8').digest('base64')}`;
}

/** Retry-After as delta-seconds or an HTTP date, in ms from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  const ms = /^\d+$/.test(v) ? Number(v) * 1000 : Date.parse(v) - now;
  if (!Number.isFinite(ms)) return null;
  return Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS);
}

/** Content-Type, the request's own headers, x-apikey when there is a key, the signature pair when there is a secret. */
function webhookHeaders(req: WebhookRequest, rawBody: string): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [name, value] of Object.entries(req.headers ?? {})) {
    if (!RECEIVER_HEADERS.includes(name.toLowerCase())) headers[name] = value;
  }
  if (req.apiKey) headers['x-apikey'] = req.apiKey;
  if (req.secret) {
    const timestamp = String(Math.floor(Date.now() / 1000));
    headers['x-timestamp'] = timestamp;
    headers['x-signature'] = sign(req.secret, timestamp, rawBody);
    if (req.eventId) {
      headers['webhook-id'] = req.eventId;
      headers['webhook-timestamp'] = timestamp;
      headers['webhook-signature'] = standardSignature(req.secret, req.eventId, timestamp, rawBody);
    }
  }
  return headers;
}

/**
 * Sends one request. `targets` decides which addresses may be reached (the
 * process's configuration by default): a refused URL or a host that resolves
 * only to refused addresses sends nothing and comes back as an error.
 */
export async function sendWebhook(
  req: WebhookRequest,
  timeoutMs: number,
  targets: TargetPolicy = configTargets(config()),
): Promise<WebhookOutcome> {
  const rawBody = JSON.stringify(req.body);
  const headers = webhookHeaders(req, rawBody);
  const sentHeaders = headers['x-apikey'] ? { ...headers, 'x-apikey': '(redacted)' } : headers;
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const refused = refusedUrl(targets, req.url);
  if (refused) {
    return { ok: false, statusCode: null, latencyMs: 0, replyBody: null, retryAfterMs: null, error: `refused target: ${refused}`, sentHeaders };
  }
  try {
    const stream = got.stream(req.url, {
      dnsLookup: guardedLookup(targets),
      method: (req.method ?? 'PUT') as Method,
      body: rawBody,
      headers,
      timeout: { request: timeoutMs },
      followRedirect: false,
      retry: { limit: 0 },
      throwHttpErrors: false,
    });
    const res = await new Promise<Response>((resolve, reject) => {
      stream.once('response', resolve);
      stream.once('error', reject);
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= REPLY_READ_BYTES) break; // leaving the loop destroys the stream: the rest is not read
    }
    return {
      ok: res.statusCode >= 200 && res.statusCode < 300,
      statusCode: res.statusCode,
      latencyMs: latency(),
      // Any bytes (UTF-16, a NUL…): made storable here, so the row can always record the answer (issue 8.4).
      replyBody: storableText(Buffer.concat(chunks).subarray(0, REPLY_READ_BYTES).toString('utf8')),
      retryAfterMs: parseRetryAfter(res.headers['retry-after']),
      error: null,
      sentHeaders,
    };
  } catch (err) {
    const reason = storableText(err instanceof RequestError ? `${err.code}: ${err.message}` : String(err));
    return { ok: false, statusCode: null, latencyMs: latency(), replyBody: null, retryAfterMs: null, error: reason, sentHeaders };
  }
}
