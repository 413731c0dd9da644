/**
 * Resending one delivery by hand (D18): a deliberate, audited second send of a
 * finished delivery (ok or failed) with the same `webhook-id` / `x-event-id`,
 * by an operator with the `admin` role (D15). Never automatic, and for the
 * acceptance notification (6.1) only this way: it changes no state (an offer
 * that went INACTIVA stays so). The attempt is recorded with the operator as
 * its actor, beside the system's attempts, and logged.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Runtime } from '../ports.js';
import { claimFinished, loadDelivery } from '../../db/stores/deliveries.js';
import { attemptDelivery } from '../../webhooks/dispatch.js';
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
  const row = await loadDelivery(em, input.deliveryId);
  if (!row) throw new DomainError('delivery.not-found', { id: input.deliveryId });
  return { id: row.id, kind: row.kind, url: row.url, offerUuid: row.offer?.uuid ?? null };
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
  if (input.understood === false) {
    const target = await resendTarget(em, input);
    if (target.kind === 'acceptance') throw new DomainError('delivery.consent-needed', { id: target.id });
  }
  const claimed = await claimFinished(em, input.deliveryId);
  if (!claimed) {
    const row = await loadDelivery(em, input.deliveryId);
    if (!row) throw new DomainError('delivery.not-found', { id: input.deliveryId });
    throw new DomainError('delivery.in-flight', { id: input.deliveryId, state: row.state });
  }
  const actor = `operator:${input.operator.username}`;
  const sent = await attemptDelivery(em, claimed, rt.config, (o) => (o.ok ? 'ok' : 'failed'), actor);
  rt.log.info({ deliveryId: claimed.id, eventId: claimed.eventId, actor, statusCode: sent.outcome.statusCode, ok: sent.outcome.ok }, 'delivery resent by hand');
  return { deliveryId: claimed.id, offerUuid: claimed.offerUuid, attempt: claimed.attempts, ok: sent.outcome.ok, statusCode: sent.outcome.statusCode, error: sent.error };
}
