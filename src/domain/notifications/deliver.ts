/**
 * One try of a state or novelty notification (D12), at least once and in
 * transition order: a delivery is not sent while an earlier one of the same
 * offer to the same URL is still pending or sending. The row records every
 * try (attempts, status, latency, reply); after NOTIFICATION_ATTEMPTS tries
 * it is given up ('failed'). What to do next is the caller's (the queue's).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { WebhookDelivery } from '../../db/entities/index.js';
import type { Runtime } from '../../main/runtime.js';
import { sendNotification } from '../../webhooks/stateDelivery.js';

export type DeliveryOutcome =
  /** gone, finished already, or not a state notification */
  | { kind: 'skipped' }
  /** an earlier delivery to the same receiver is unfinished: try again in `ms` */
  | { kind: 'waiting'; ms: number }
  | { kind: 'delivered' }
  /** this try failed; `afterMs` when the receiver said when to come back (Retry-After) */
  | { kind: 'retry'; afterMs: number | null; reason: string }
  | { kind: 'gave-up'; reason: string };

const KINDS = new Set(['state', 'novedad']);

async function earlierUnfinished(em: EntityManager, d: WebhookDelivery): Promise<boolean> {
  if (!d.offer) return false;
  const rows = await em.execute<Array<{ n: number }>>(
    `select 1 as n from webhook_delivery e
      where e.offer_uuid = ? and e.url = ? and e.state in ('pending', 'sending')
        and e.seq < (select seq from webhook_delivery where id = ?)
      limit 1`,
    [d.offer.uuid, d.url, d.id],
  );
  return rows.length > 0;
}

export async function deliverStateNotification(rt: Pick<Runtime, 'orm' | 'config'>, deliveryId: string): Promise<DeliveryOutcome> {
  const em = rt.orm.em.fork();
  const d = await em.findOne(WebhookDelivery, deliveryId, { populate: ['receiver'] });
  if (!d || !KINDS.has(d.kind) || d.state === 'ok' || d.state === 'failed') return { kind: 'skipped' };
  if (await earlierUnfinished(em, d)) return { kind: 'waiting', ms: rt.config.notificationBackoffMs };

  d.state = 'sending';
  d.attempts += 1;
  d.sentAt = new Date();
  await em.flush();

  const r = await sendNotification(
    { url: d.url, method: d.method, headers: d.requestHeaders, body: d.requestBody },
    { apiKey: d.receiver?.apiKey, webhookSecret: d.receiver?.webhookSecret },
    rt.config.webhookTimeoutMs,
  );
  d.statusCode = r.statusCode;
  d.latencyMs = r.latencyMs;
  d.replyBody = r.replyBody;
  d.error = r.error;
  const ok = r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;
  const reason = r.statusCode !== null ? `HTTP ${r.statusCode}` : (r.error ?? 'no answer');
  if (ok || d.attempts >= rt.config.notificationAttempts) {
    d.state = ok ? 'ok' : 'failed';
    d.completedAt = new Date();
    await em.flush();
    return ok ? { kind: 'delivered' } : { kind: 'gave-up', reason };
  }
  d.state = 'pending';
  await em.flush();
  return { kind: 'retry', afterMs: r.retryAfterMs, reason };
}
