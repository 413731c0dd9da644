/**
 * The SMS outbox: one `sms_message` row per SMS (its store:
 * src/db/stores/sms.ts). A row is inserted in the caller's transaction and
 * sent by the `customer-sms` job after commit, so a slow provider never holds
 * a request (D16).
 */
import { randomUUID } from 'node:crypto';
import { UnrecoverableError } from 'bullmq';
import type { EntityManager } from '@mikro-orm/postgresql';
import { claimPendingSms, insertSms, markSmsFailure, markSmsSent, smsToPhone, type SmsRow } from '../db/stores/sms.js';
import { SmsSendError, type SmsProvider } from './providers.js';

export type { SmsRow } from '../db/stores/sms.js';

/** Records an SMS to send with `provider`; returns its id (enqueue it after commit). */
export async function recordSms(em: EntityManager, sms: { offerUuid: string | null; to: string; body: string; provider: string }): Promise<string> {
  const id = randomUUID();
  await insertSms(em, { id, ...sms });
  return id;
}

/**
 * One try of the `customer-sms` job. A row already sent (a retried job) is not
 * sent again. A failure is recorded; it throws so the queue retries, except
 * a refusal retrying cannot change (4xx), which ends at once, and the last
 * try, which marks the row failed.
 */
export async function sendRecordedSms(em: EntityManager, provider: SmsProvider, id: string, lastAttempt: boolean): Promise<void> {
  const row = await claimPendingSms(em, id);
  if (!row) return;
  try {
    const { providerId } = await provider.send(row.to_phone, row.body);
    await markSmsSent(em, id, providerId);
  } catch (err) {
    const final = lastAttempt || (err instanceof SmsSendError && !err.retryable);
    const message = (err as Error).message.slice(0, 500);
    await markSmsFailure(em, id, message, final ? 'failed' : 'pending');
    if (final) throw new UnrecoverableError(message);
    throw err;
  }
}

/** The newest messages sent to a phone (operators, tests). */
export async function smsTo(em: EntityManager, phone: string, limit = 10): Promise<SmsRow[]> {
  return smsToPhone(em, phone, limit);
}
