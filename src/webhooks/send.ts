/**
 * One outgoing webhook request (STYLE 10, decisions D5): JSON body sent as
 * the exact bytes that are signed, a timeout, no redirects, no retries. What
 * the peer answered (or why it did not) comes back as a value, never thrown.
 */
import got, { RequestError, type Method } from 'got';
import { createHmac } from 'node:crypto';
import { performance } from 'node:perf_hooks';

/** How much of a reply is kept in memory (the stored copy is shorter, see REPLY_STORED_CHARS). */
const REPLY_READ_CHARS = 64 * 1024;

export interface WebhookRequest {
  /** PUT unless said otherwise */
  method?: Method;
  url: string;
  body: Record<string, unknown>;
  /** sent as x-apikey when present */
  apiKey?: string | null;
  /** when present: x-timestamp and x-signature (decisions D5) */
  secret?: string | null;
  /** extra headers, e.g. x-event-id for state notifications (D12) */
  headers?: Record<string, string>;
}

export interface WebhookOutcome {
  /** true only for HTTP 200 (spec 6.1) */
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  /** the reply body (up to 64 KB), null when none arrived */
  replyBody: string | null;
  /** why no reply arrived (timeout, refused...) */
  error: string | null;
  /** the headers sent, secrets masked, for the delivery row */
  sentHeaders: Record<string, string>;
}

/** Hex HMAC-SHA256 of `<timestamp>.<raw body>` (decisions D5). */
export function signature(secret: string, timestamp: string, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex');
}

/** The headers of a request: Content-Type, x-apikey when there is a key, the signature pair when there is a secret. */
export function webhookHeaders(req: WebhookRequest, rawBody: string, now = new Date()): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...req.headers };
  if (req.apiKey) headers['x-apikey'] = req.apiKey;
  if (req.secret) {
    const timestamp = String(Math.floor(now.getTime() / 1000));
    headers['x-timestamp'] = timestamp;
    headers['x-signature'] = signature(req.secret, timestamp, rawBody);
  }
  return headers;
}

export async function sendWebhook(req: WebhookRequest, timeoutMs: number): Promise<WebhookOutcome> {
  const rawBody = JSON.stringify(req.body);
  const headers = webhookHeaders(req, rawBody);
  const sentHeaders = { ...headers, ...(headers['x-apikey'] ? { 'x-apikey': '***' } : {}) };
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  try {
    const res = await got(req.url, {
      method: req.method ?? 'PUT',
      body: rawBody,
      headers,
      timeout: { request: timeoutMs },
      followRedirect: false,
      retry: { limit: 0 },
      throwHttpErrors: false,
      responseType: 'text',
    });
    return {
      ok: res.statusCode === 200,
      statusCode: res.statusCode,
      latencyMs: latency(),
      replyBody: res.body.slice(0, REPLY_READ_CHARS),
      error: null,
      sentHeaders,
    };
  } catch (err) {
    const reason = err instanceof RequestError ? `${err.code}: ${err.message}` : String(err);
    return { ok: false, statusCode: null, latencyMs: latency(), replyBody: null, error: reason, sentHeaders };
  }
}
