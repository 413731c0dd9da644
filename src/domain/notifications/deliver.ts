/**
 * One try of a state or novelty notification (D12), at least once and in
 * transition order: a delivery is not sent while an earlier one of the same
 * offer to the same URL is still pending or sending. The row records every
 * try (attempts, status, latency, reply); after NOTIFICATION_ATTEMPTS tries
 * it is given up ('failed'). What to do next is the caller's (the queue's).
 *
 * A try costs two statements: one claims the row (checking the order in the
 * same statement) and one records the answer and names the next delivery
 * to the same receiver. The claim is the deliveries' store's
 * (src/db/stores/deliveries.ts); sending and recording are the dispatcher's
 * (src/webhooks/dispatch.ts).
 */
import type { Runtime } from '../ports.js';
import { claimInOrder, isUnfinished } from '../../db/stores/deliveries.js';
import { attemptDelivery } from '../../webhooks/dispatch.js';

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

/** The kinds this module sends. */
const KINDS = ['state', 'novedad', 'assignment-push'] as const;

export async function deliverStateNotification(rt: Pick<Runtime, 'orm' | 'config'>, deliveryId: string): Promise<DeliveryOutcome> {
  const em = rt.orm.em.fork();
  const d = await claimInOrder(em, deliveryId, KINDS);
  if (!d) {
    return (await isUnfinished(em, deliveryId, KINDS)) ? { kind: 'waiting', ms: rt.config.notificationBackoffMs } : { kind: 'skipped' };
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
