/**
 * Pushing an offer to a central's api_endpoint.oferta (decisions D8). Each push
 * is a webhook_delivery row (kind 'offer-push', STYLE 10) claimed pending →
 * sending before the request, so it is sent at most once; one attempt (the
 * push is informative: the window is short and the technicians get the offer
 * in real time), a timeout, no redirects, HMAC-signed when the central's
 * profile has a webhookSecret.
 */
import got, { RequestError } from 'got';
import { createHmac } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WebhookDelivery } from '../db/entities/index.js';

const REPLY_LIMIT = 2048;

export interface PushOutcome {
  deliveryId: string;
  ok: boolean;
}

interface Claimed {
  id: string;
  url: string;
  event_id: string;
  request_body: Record<string, unknown>;
  api_key: string | null;
  webhook_secret: string | null;
}

/** `{url_api}{path}`, or null when the profile lacks either. */
export function endpointUrl(urlApi: string | null | undefined, path: string | null | undefined): string | null {
  if (!urlApi || !path) return null;
  return `${urlApi.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** Claims the offer's pending pushes and sends them concurrently; one failing never stops the others. */
export async function sendPendingPushes(em: EntityManager, offerUuid: string, timeoutMs: number): Promise<PushOutcome[]> {
  const claimed = await em.getConnection().execute<Claimed[]>(
    `update webhook_delivery d
        set state = 'sending', attempts = d.attempts + 1, sent_at = now()
       from offer_recipient r
       join central c on c.id = r.central_id
       left join api_user u on u.id = c.api_user_id
      where r.delivery_id = d.id and d.offer_uuid = ? and d.kind = 'offer-push' and d.state = 'pending'
      returning d.id, d.url, d.event_id, d.request_body, u.api_key, u.webhook_secret`,
    [offerUuid],
  );
  return Promise.all(claimed.map((d) => send(em, d, timeoutMs)));
}

async function send(em: EntityManager, d: Claimed, timeoutMs: number): Promise<PushOutcome> {
  const raw = JSON.stringify(d.request_body);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-event-id': d.event_id };
  if (d.api_key) headers['x-apikey'] = d.api_key;
  if (d.webhook_secret) {
    const ts = String(Math.floor(Date.now() / 1000));
    headers['x-timestamp'] = ts;
    headers['x-signature'] = createHmac('sha256', d.webhook_secret).update(`${ts}.${raw}`).digest('hex');
  }
  const started = performance.now();
  let statusCode: number | null = null;
  let replyBody: string | null = null;
  let error: string | null = null;
  try {
    const res = await got.put(d.url, {
      body: raw,
      headers,
      timeout: { request: timeoutMs },
      retry: { limit: 0 },
      followRedirect: false,
      throwHttpErrors: false,
    });
    statusCode = res.statusCode;
    replyBody = res.body.slice(0, REPLY_LIMIT);
  } catch (err) {
    error = err instanceof RequestError ? `${err.code ?? 'error'}: ${err.message}` : String(err);
  }
  const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
  await em.nativeUpdate(
    WebhookDelivery,
    { id: d.id },
    {
      state: ok ? 'ok' : 'failed',
      statusCode,
      latencyMs: Math.round(performance.now() - started),
      replyBody,
      error: error ?? (ok ? null : `HTTP ${statusCode}`),
      completedAt: new Date(),
      requestHeaders: d.api_key ? { ...headers, 'x-apikey': '(redacted)' } : headers,
    },
  );
  return { deliveryId: d.id, ok };
}
