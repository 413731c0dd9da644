/**
 * The `sms_message` table: one row per SMS (the offline outbox operators
 * read, and the record of every provider's outcome), written by
 * src/sms/messages.ts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

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

/** Inserts a pending SMS, in the caller's transaction when it runs one. */
export async function insertSms(em: EntityManager, sms: { id: string; offerUuid: string | null; to: string; body: string; provider: string }): Promise<void> {
  await em.execute(`insert into sms_message (id, offer_uuid, to_phone, body, provider) values (?, ?, ?, ?, ?)`, [sms.id, sms.offerUuid, sms.to, sms.body, sms.provider]);
}

/** Counts one more try of a still pending SMS and returns it (undefined: none pending by that id). */
export async function claimPendingSms(em: EntityManager, id: string): Promise<SmsRow | undefined> {
  const [row] = await em.execute<SmsRow[]>(`update sms_message set attempts = attempts + 1 where id = ? and state = 'pending' returning *`, [id]);
  return row;
}

/** An SMS the provider took, with its id there. */
export async function markSmsSent(em: EntityManager, id: string, providerId: string | null): Promise<void> {
  await em.execute(`update sms_message set state = 'sent', sent_at = now(), provider_id = ?, error = null where id = ?`, [providerId, id]);
}

/** A failed try: its error, and whether the SMS is failed for good or still pending. */
export async function markSmsFailure(em: EntityManager, id: string, error: string, state: 'failed' | 'pending'): Promise<void> {
  await em.execute(`update sms_message set error = ?, state = ? where id = ?`, [error, state, id]);
}

/** The newest messages sent to a phone. */
export async function smsToPhone(em: EntityManager, phone: string, limit: number): Promise<SmsRow[]> {
  return em.execute<SmsRow[]>(`select * from sms_message where to_phone = ? order by created_at desc limit ?`, [phone, limit]);
}
