/**
 * The SMS outbox: one `sms_message` row per SMS (its store:
 * src/db/stores/sms.ts). A row is inserted in the caller's transaction and
 * sent by the `customer-sms` job after commit, so a slow provider never holds
 * a request (D16). A secret in the body (the tracking code) is never stored in
 * clear except for the `outbox` provider, which is refused in production
 * (D24): the row keeps the body with the secret masked, and the body to send
 * travels sealed (./seal.ts) until the provider took it or it failed for good.
 */
import { randomUUID } from 'node:crypto';
import { UnrecoverableError } from 'bullmq';
import type { EntityManager } from '@mikro-orm/postgresql';
import { claimPendingSms, insertSms, markSmsFailure, markSmsSent, smsToPhone, type SmsRow } from '../db/stores/sms.js';
import { SmsSendError, type SmsProvider } from './providers.js';
import { masked, seal, unseal } from './seal.js';

export type { SmsRow } from '../db/stores/sms.js';

export interface NewSms {
  offerUuid: string | null;
  to: string;
  body: string;
  provider: string;
  /** a secret within the body (a code): masked in the row, unless the provider is `outbox` */
  secret?: string;
}

/** Records an SMS to send with `provider`; returns its id (enqueue it after commit). `sealKey`: see ./seal.ts. */
export async function recordSms(em: EntityManager, sms: NewSms, sealKey: Buffer): Promise<string> {
  const id = randomUUID();
  const hidden = sms.secret && sms.provider !== 'outbox' ? sms.secret : null;
  await insertSms(em, {
    id,
    offerUuid: sms.offerUuid,
    to: sms.to,
    provider: sms.provider,
    body: hidden ? masked(sms.body, hidden) : sms.body,
    sealedBody: hidden ? seal(sealKey, { body: sms.body, secret: hidden }) : null,
  });
  return id;
}

/**
 * One try of the `customer-sms` job. A row already sent (a retried job) is not
 * sent again. A failure is recorded (the secret masked in its text); it throws
 * so the queue retries, except a refusal retrying cannot change (4xx), which
 * ends at once, and the last try, which marks the row failed. Once sent or
 * failed for good, the sealed body is erased.
 */
export async function sendRecordedSms(em: EntityManager, provider: SmsProvider, id: string, lastAttempt: boolean, sealKey: Buffer): Promise<void> {
  const row = await claimPendingSms(em, id);
  if (!row) return;
  const opened = row.sealed_body === null ? { body: row.body, secret: '' } : unseal(sealKey, row.sealed_body);
  if (!opened) {
    const message = 'the sealed body cannot be opened (INTEGRITY_SECRET changed since it was written)';
    await markSmsFailure(em, id, message, 'failed');
    throw new UnrecoverableError(message);
  }
  try {
    const { providerId } = await provider.send(row.to_phone, opened.body);
    await markSmsSent(em, id, providerId);
  } catch (err) {
    const final = lastAttempt || (err instanceof SmsSendError && !err.retryable);
    // A provider may echo the message back in its error: the secret never reaches the row, the queue or a log.
    const message = masked((err as Error).message, opened.secret).slice(0, 500);
    await markSmsFailure(em, id, message, final ? 'failed' : 'pending');
    if (final) throw new UnrecoverableError(message);
    throw new SmsSendError(message, true);
  }
}

/** The newest messages sent to a phone (operators, tests). */
export async function smsTo(em: EntityManager, phone: string, limit = 10): Promise<SmsRow[]> {
  return smsToPhone(em, phone, limit);
}
