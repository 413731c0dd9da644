/**
 * One try of a state or novelty notification (D12), at least once and in
 * transition order: a delivery is not sent while an earlier one of the same
 * offer to the same URL is still pending or sending. The row records every
 * try (attempts, status, latency, reply); after NOTIFICATION_ATTEMPTS tries
 * it is given up ('failed'). What to do next is the caller's (the queue's).
 *
 * A try costs two statements: one claims the row (checking the order in the
 * same statement) and one records the answer and names the next delivery
 * to the same receiver.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Runtime } from '../../main/runtime.js';
import { sendNotification, type SendResult } from '../../webhooks/stateDelivery.js';

export type DeliveryOutcome =
  /** gone, finished already, or not a state notification */
  | { kind: 'skipped' }
  /** an earlier delivery to the same receiver is unfinished: try again in `ms` */
  | { kind: 'waiting'; ms: number }
  /** `next`: the following unfinished delivery to the same receiver, which may now go */
  | { kind: 'delivered'; next: string | null }
  /** this try failed; `afterMs` when the receiver said when to come back (Retry-After) */
  | { kind: 'retry'; afterMs: number | null; reason: string }
  | { kind: 'gave-up'; reason: string; next: string | null };

interface Claimed {
  url: string;
  method: string;
  request_headers: Record<string, string>;
  request_body: Record<string, unknown>;
  attempts: number;
  api_key: string | null;
  webhook_secret: string | null;
}

const UNFINISHED = `('pending', 'sending')`;

/** Marks the delivery sending (one more attempt) unless it is finished or an earlier one to its receiver is not. */
async function claim(em: EntityManager, id: string): Promise<Claimed | null> {
  const rows = await em.execute<Claimed[]>(
    `update webhook_delivery d set state = 'sending', attempts = d.attempts + 1, sent_at = now()
      where d.id = ? and d.kind in ('state', 'novedad') and d.state in ${UNFINISHED}
        and not exists (select 1 from webhook_delivery e
                         where e.offer_uuid = d.offer_uuid and e.url = d.url and e.state in ${UNFINISHED} and e.seq < d.seq)
      returning d.url, d.method, d.request_headers, d.request_body, d.attempts,
                (select u.api_key from api_user u where u.id = d.receiver_id) as api_key,
                (select u.webhook_secret from api_user u where u.id = d.receiver_id) as webhook_secret`,
    [id],
  );
  return rows[0] ?? null;
}

async function isUnfinished(em: EntityManager, id: string): Promise<boolean> {
  const rows = await em.execute(`select 1 from webhook_delivery where id = ? and kind in ('state', 'novedad') and state in ${UNFINISHED}`, [id]);
  return rows.length > 0;
}

/** Records the answer; returns the next unfinished delivery of the same offer to the same URL. */
async function record(em: EntityManager, id: string, state: 'ok' | 'failed' | 'pending', r: SendResult): Promise<string | null> {
  const rows = await em.execute<Array<{ next: string | null }>>(
    `update webhook_delivery d
        set state = ?, status_code = ?, latency_ms = ?, reply_body = ?, error = ?,
            completed_at = case when ? = 'pending' then null else now() end
      where d.id = ?
      returning (select e.id from webhook_delivery e
                  where e.offer_uuid = d.offer_uuid and e.url = d.url and e.state in ${UNFINISHED} and e.seq > d.seq
                  order by e.seq limit 1) as next`,
    [state, r.statusCode, r.latencyMs, r.replyBody, r.error, state, id],
  );
  return rows[0]?.next ?? null;
}

export async function deliverStateNotification(rt: Pick<Runtime, 'orm' | 'config'>, deliveryId: string): Promise<DeliveryOutcome> {
  const em = rt.orm.em.fork();
  const d = await claim(em, deliveryId);
  if (!d) {
    return (await isUnfinished(em, deliveryId)) ? { kind: 'waiting', ms: rt.config.notificationBackoffMs } : { kind: 'skipped' };
  }
  const r = await sendNotification(
    { url: d.url, method: d.method, headers: d.request_headers, body: d.request_body },
    { apiKey: d.api_key, webhookSecret: d.webhook_secret },
    rt.config.webhookTimeoutMs,
  );
  const ok = r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;
  const reason = r.statusCode !== null ? `HTTP ${r.statusCode}` : (r.error ?? 'no answer');
  if (ok) return { kind: 'delivered', next: await record(em, deliveryId, 'ok', r) };
  if (d.attempts >= rt.config.notificationAttempts) return { kind: 'gave-up', reason, next: await record(em, deliveryId, 'failed', r) };
  await record(em, deliveryId, 'pending', r);
  return { kind: 'retry', afterMs: r.retryAfterMs, reason };
}
