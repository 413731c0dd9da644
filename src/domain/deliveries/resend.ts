/**
 * Resending one delivery by hand (D18): a deliberate, audited second send of a
 * finished delivery (ok or failed) with the same `webhook-id` / `x-event-id`,
 * by an operator with the `admin` role (D15). Never automatic, and for the
 * acceptance notification (6.1) only this way: it changes no state (an offer
 * that went INACTIVA stays so).
 *
 * A resend is its own attempt in the delivery log, with the operator as its
 * actor, opened before it is sent and answered on itself; the delivery's row
 * is never touched (issue 29 item 9, RET-7): the 6.1's row is D5's record of
 * the acceptance, and a resend that claimed it (sending) and died mid-way
 * left it to the sweeper, which settled it as unanswered and moved an
 * assigned service to INACTIVA. Two resends of one delivery at once: the
 * second is refused while the first is in flight.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Runtime } from '../ports.js';
import { openResendAttempt, resendableDelivery } from '../../db/stores/deliveries.js';
import { resendOnce } from '../../webhooks/dispatch.js';
import { DomainError } from '../errors.js';
import { UUID_RE } from '../offers/create/input.js';

export interface Resent {
  deliveryId: string;
  /** the offer it is about, when any (the console returns to its page) */
  offerUuid: string | null;
  attempt: number;
  ok: boolean;
  statusCode: number | null;
  error: string | null;
}

/** What a resend would send, for the console's confirmation (D23): refused as the resend would be for who asks. */
export async function resendTarget(
  em: EntityManager,
  input: { deliveryId: string; operator: { role: string } },
): Promise<{ id: string; kind: string; url: string; offerUuid: string | null }> {
  if (input.operator.role !== 'admin') throw new DomainError('delivery.admin-only');
  if (!UUID_RE.test(input.deliveryId)) throw new DomainError('delivery.not-found', { id: input.deliveryId.slice(0, 64) });
  const row = await resendableDelivery(em, input.deliveryId);
  if (!row) throw new DomainError('delivery.not-found', { id: input.deliveryId });
  return { id: row.id, kind: row.kind, url: row.url, offerUuid: row.offerUuid };
}

/**
 * `understood` (D23): the acceptance notice (6.1) is sent once by the spec; an admin resends it only saying they
 * understand the generator gets it a second time. Omitted (callers that are not the console): not asked.
 */
export async function resendDelivery(
  rt: Pick<Runtime, 'orm' | 'config' | 'log'>,
  input: { deliveryId: string; operator: { username: string; role: string }; understood?: boolean },
): Promise<Resent> {
  if (input.operator.role !== 'admin') throw new DomainError('delivery.admin-only');
  if (!UUID_RE.test(input.deliveryId)) throw new DomainError('delivery.not-found', { id: input.deliveryId.slice(0, 64) });
  const em = rt.orm.em.fork();
  const row = await resendableDelivery(em, input.deliveryId);
  if (!row) throw new DomainError('delivery.not-found', { id: input.deliveryId });
  if (input.understood === false && row.kind === 'acceptance') throw new DomainError('delivery.consent-needed', { id: row.id });
  if (row.state !== 'ok' && row.state !== 'failed') throw new DomainError('delivery.in-flight', { id: input.deliveryId, state: row.state });
  const actor = `operator:${input.operator.username}`;
  // another resend of it still waiting for its answer (at most the webhook timeout and a margin)
  const opened = await openResendAttempt(em, row.id, actor, rt.config.webhookTimeoutMs + 5000);
  if (!opened) throw new DomainError('delivery.in-flight', { id: input.deliveryId, state: 'sending' });
  const sent = await resendOnce(em, { ...row, attempts: opened.attempt }, opened.id, rt.config);
  rt.log.info({ deliveryId: row.id, eventId: row.eventId, actor, statusCode: sent.outcome.statusCode, ok: sent.outcome.ok }, 'delivery resent by hand');
  return { deliveryId: row.id, offerUuid: row.offerUuid, attempt: opened.attempt, ok: sent.outcome.ok, statusCode: sent.outcome.statusCode, error: sent.error };
}
