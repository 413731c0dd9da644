/**
 * Signs requests the way a client application does for /chat and /tracking
 * (decisions D13): `x-timestamp`, `x-nonce` and `x-signature` = hex
 * HMAC-SHA256 of `<timestamp>.<nonce>.<METHOD>.<path>.<raw body>`, where
 * `<path>` is the request target as sent (with `/api/v3` and the query string).
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { Got, Response } from 'got';

export interface SignOptions {
  secret: string;
  method: string;
  /** the request target as sent: `/api/v3/tracking/track`, `/api/v3/chat/SV-ABC234/messages?limit=5` */
  target: string;
  /** the raw body exactly as sent; '' when there is none */
  body?: string;
  timestamp?: number;
  nonce?: string;
}

export function integrityHeaders(o: SignOptions): Record<string, string> {
  const timestamp = String(o.timestamp ?? Math.floor(Date.now() / 1000));
  const nonce = o.nonce ?? randomUUID();
  const signature = createHmac('sha256', o.secret)
    .update(`${timestamp}.${nonce}.${o.method.toUpperCase()}.${o.target}.${o.body ?? ''}`)
    .digest('hex');
  return { 'x-timestamp': timestamp, 'x-nonce': nonce, 'x-signature': signature };
}

export interface SignedCall {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** without the leading slash, as got's prefixUrl wants: `api/v3/tracking/track` */
  path: string;
  json?: unknown;
  headers?: Record<string, string>;
  /** overrides for the signature, to build refusals (old timestamp, reused nonce, wrong secret) */
  sign?: Partial<SignOptions>;
}

/** Sends one signed request through a test app's client (its answer is still checked against the document). */
export function signedCall(client: Got, secret: string, call: SignedCall): Promise<Response<unknown>> {
  const method = call.method ?? (call.json === undefined ? 'GET' : 'POST');
  const body = call.json === undefined ? '' : JSON.stringify(call.json);
  const headers = {
    ...integrityHeaders({ secret, method, target: `/${call.path}`, body, ...call.sign }),
    ...(call.json === undefined ? {} : { 'content-type': 'application/json' }),
    ...call.headers,
  };
  return client(call.path, { method, headers, ...(call.json === undefined ? {} : { body }) }) as Promise<Response<unknown>>;
}
