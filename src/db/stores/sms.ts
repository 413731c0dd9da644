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
  /** the body as kept: a secret in it masked, unless the provider is outbox (D24) */
  body: string;
  /** the body to send, sealed (src/sms/seal.ts), until it was sent or failed for good */
  sealed_body: string | null;
  provider: string;
  state: 'pending' | 'sent' | 'failed';
  attempts: number;
  provider_id: string | null;
  error: string | null;
  created_at: Date;
  sent_at: Date | null;
}

/** Inserts a pending SMS, in the caller's transaction when it runs one. */
export async function insertSms(
  em: EntityManager,
  sms: { id: string; offerUuid: string | null; to: string; body: string; sealedBody: string | null; provider: string },
): Promise<void> {
  await em.execute(`insert into sms_message (id, offer_uuid, to_phone, body, sealed_body, provider) values (?, ?, ?, ?, ?, ?)`, [
    sms.id,
    sms.offerUuid,
    sms.to,
    sms.body,
    sms.sealedBody,
    sms.provider,
  ]);
}

/** Counts one more try of a still pending SMS and returns it (undefined: none pending by that id). */
export async function claimPendingSms(em: EntityManager, id: string): Promise<SmsRow | undefined> {
  const [row] = await em.execute<SmsRow[]>(`update sms_message set attempts = attempts + 1 where id = ? and state = 'pending' returning *`, [id]);
  return row;
}

/** An SMS the provider took, with its id there. */
export async function markSmsSent(em: EntityManager, id: string, providerId: string | null): Promise<void> {
  await em.execute(`update sms_message set state = 'sent', sent_at = now(), provider_id = ?, error = null, sealed_body = null where id = ?`, [providerId, id]);
}

/** A failed try: its error, and whether the SMS is failed for good (its sealed body erased) or still pending. */
export async function markSmsFailure(em: EntityManager, id: string, error: string, state: 'failed' | 'pending'): Promise<void> {
  await em.execute(`update sms_message set error = ?, state = ?, sealed_body = case when ? = 'failed' then null else sealed_body end where id = ?`, [
    error,
    state,
    state,
    id,
  ]);
}

/** The newest messages sent to a phone. */
export async function smsToPhone(em: EntityManager, phone: string, limit: number): Promise<SmsRow[]> {
  return em.execute<SmsRow[]>(`select * from sms_message where to_phone = ? order by created_at desc limit ?`, [phone, limit]);
}

/** Serialises, until the caller's transaction ends, the SMS of one generator's services (its daily budget, D24). */
export async function lockGeneratorSms(em: EntityManager, generatorId: number): Promise<void> {
  await em.execute(`select pg_advisory_xact_lock(hashtext(?))`, [`sms-budget.${generatorId}`]);
}

/** How many SMS went (or are going) to the customers of one generator's services in the last 24 hours. */
export async function generatorSmsLastDay(em: EntityManager, generatorId: number): Promise<number> {
  const [{ n }] = await em.execute<Array<{ n: string }>>(
    `select count(*) as n from sms_message s join offer o on o.uuid = s.offer_uuid
      where o.generator_id = ? and s.created_at > now() - interval '1 day'`,
    [generatorId],
  );
  return Number(n);
}

/** Deletes at most `batch` SMS rows older than `days`, set-based; how many went (retention). */
export async function pruneSmsBatch(em: EntityManager, days: number, batch: number): Promise<number> {
  const res = await em.execute<Array<{ id: string }>>(
    `delete from sms_message where id in (select id from sms_message where created_at < now() - make_interval(days => ?) limit ?) returning id`,
    [days, batch],
  );
  return res.length;
}
