/**
 * One try of a state or novelty notification (D12), at least once and in
 * transition order: a delivery is not sent while an earlier one of the same
 * offer to the same URL is still pending or sending. The row records every
 * try (attempts, status, latency, reply); after NOTIFICATION_ATTEMPTS tries
 * it is given up ('failed'). What to do next is the caller's (the queue's).
 *
 * A try costs two statements: one claims the row (checking the order in the
 * same statement) and one records the answer and names the next delivery
 * to the same receiver. Sending and recording are src/webhooks/deliveries.ts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Runtime } from '../../main/runtime.js';
import { attemptDelivery, claimDeliveries, type ClaimedDelivery } from '../../webhooks/deliveries.js';

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

const UNFINISHED = `('pending', 'sending')`;

/** Marks the delivery sending (one more attempt) unless it is finished or an earlier one to its receiver is not. */
async function claim(em: EntityManager, id: string): Promise<ClaimedDelivery | null> {
  const [claimed] = await claimDeliveries(
    em,
    `d.id = ? and d.kind in ('state', 'novedad') and d.state in ${UNFINISHED}
       and not exists (select 1 from webhook_delivery e
                        where e.offer_uuid = d.offer_uuid and e.url = d.url and e.state in ${UNFINISHED} and e.seq < d.seq)`,
    [id],
  );
  return claimed ?? null;
}

async function isUnfinished(em: EntityManager, id: string): Promise<boolean> {
  const rows = await em.execute(`select 1 from webhook_delivery where id = ? and kind in ('state', 'novedad') and state in ${UNFINISHED}`, [id]);
  return rows.length > 0;
}

export async function deliverStateNotification(rt: Pick<Runtime, 'orm' | 'config'>, deliveryId: string): Promise<DeliveryOutcome> {
  const em = rt.orm.em.fork();
  const d = await claim(em, deliveryId);
  if (!d) {
    return (await isUnfinished(em, deliveryId)) ? { kind: 'waiting', ms: rt.config.notificationBackoffMs } : { kind: 'skipped' };
  }
  const lastTry = d.attempts >= rt.config.notificationAttempts;
  const sent = await attemptDelivery(em, d, rt.config, (o) => (o.ok ? 'ok' : lastTry ? 'failed' : 'pending'));
  if (!sent.recorded) return { kind: 'skipped' };
  const reason = sent.error ?? 'no answer';
  if (sent.verdict === 'ok') return { kind: 'delivered', next: sent.next };
  if (sent.verdict === 'failed') return { kind: 'gave-up', reason, next: sent.next };
  const { statusCode, retryAfterMs } = sent.outcome;
  return { kind: 'retry', afterMs: statusCode === 429 || statusCode === 503 ? retryAfterMs : null, reason };
}
