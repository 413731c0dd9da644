/**
 * The `sms_message` table, written only here: one row per SMS (the offline
 * outbox operators read, and the record of every provider's outcome). A row
 * is inserted in the caller's transaction and sent by the `customer-sms` job
 * after commit, so a slow provider never holds a request (D16).
 */
import { randomUUID } from 'node:crypto';
import { UnrecoverableError } from 'bullmq';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SmsSendError, type SmsProvider } from './providers.js';

export interface SmsRow {
  id: string;
  offer_uuid: string | null;
  to_phone: string;
  body: string;
  provider: string;
  state: 'pending' | 'sent' | 'failed';
  attempts: number;
  provider_id: string | null;
  error: string | null;
  created_at: Date;
  sent_at: Date | null;
}

/** Records an SMS to send with `provider`; returns its id (enqueue it after commit). */
export async function recordSms(em: EntityManager, sms: { offerUuid: string | null; to: string; body: string; provider: string }): Promise<string> {
  const id = randomUUID();
  await em.execute(`insert into sms_message (id, offer_uuid, to_phone, body, provider) values (?, ?, ?, ?, ?)`, [
    id,
    sms.offerUuid,
    sms.to,
    sms.body,
    sms.provider,
  ]);
  return id;
}

/**
 * One try of the `customer-sms` job. A row already sent (a retried job) is not
 * sent again. A failure is recorded; it throws so the queue retries, except
 * a refusal retrying cannot change (4xx), which ends at once, and the last
 * try, which marks the row failed.
 */
export async function sendRecordedSms(em: EntityManager, provider: SmsProvider, id: string, lastAttempt: boolean): Promise<void> {
  const [row] = await em.execute<SmsRow[]>(
    `update sms_message set attempts = attempts + 1 where id = ? and state = 'pending' returning *`,
    [id],
  );
  if (!row) return;
  try {
    const { providerId } = await provider.send(row.to_phone, row.body);
    await em.execute(`update sms_message set state = 'sent', sent_at = now(), provider_id = ?, error = null where id = ?`, [providerId, id]);
  } catch (err) {
    const final = lastAttempt || (err instanceof SmsSendError && !err.retryable);
    const message = (err as Error).message.slice(0, 500);
    await em.execute(`update sms_message set error = ?, state = ? where id = ?`, [message, final ? 'failed' : 'pending', id]);
    if (final) throw new UnrecoverableError(message);
    throw err;
  }
}

/** The newest messages sent to a phone (operators, tests). */
export async function smsTo(em: EntityManager, phone: string, limit = 10): Promise<SmsRow[]> {
  return em.execute<SmsRow[]>(`select * from sms_message where to_phone = ? order by created_at desc limit ?`, [phone, limit]);
}
