/**
 * A webhook delivery is a row with a state (STYLE 10): pending → sending →
 * ok | failed. The row is created in the transaction that decides to notify;
 * a sender claims it atomically before sending, so a delivery is attempted at
 * most once however many jobs or processes look at it (decisions D5).
 */
import type { QueryResult } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import { WebhookDelivery, type DeliveryKind, type Offer } from '../db/entities/index.js';
import type { Method } from 'got';
import type { WebhookOutcome } from './send.js';

/** How much of a reply body is stored on the row. */
export const REPLY_STORED_CHARS = 2048;

/** What is stored as "the peer never answered" when a claimed delivery is found abandoned. */
export const ABANDONED_ERROR = 'no answer recorded: the sender stopped while waiting for the reply';

export interface NewDelivery {
  offer: Offer | null;
  kind: DeliveryKind;
  /** unique; receivers deduplicate with it (x-event-id) and it keeps a delivery from being planned twice */
  eventId: string;
  url: string;
  body: Record<string, unknown>;
  method?: Method;
}

/** Adds a pending delivery to the unit of work; the caller's flush/commit writes it. */
export function createDelivery(em: EntityManager, d: NewDelivery): WebhookDelivery {
  return em.create(WebhookDelivery, {
    id: randomUUID(),
    offer: d.offer,
    kind: d.kind,
    eventId: d.eventId,
    url: d.url,
    method: d.method ?? 'PUT',
    requestHeaders: { 'content-type': 'application/json' },
    requestBody: d.body,
    state: 'pending',
    attempts: 0,
    statusCode: null,
    latencyMs: null,
    replyBody: null,
    error: null,
    createdAt: new Date(),
    sentAt: null,
    completedAt: null,
  });
}

/**
 * pending → sending in one statement; returns the delivery when this caller
 * won it, null when it is not pending (already claimed, done or gone).
 */
export async function claimDelivery(em: EntityManager, id: string): Promise<WebhookDelivery | null> {
  const rows = await em
    .getConnection()
    .execute<Array<{ id: string }>>(
      `update webhook_delivery set state = 'sending', attempts = attempts + 1, sent_at = now()
        where id = ? and state = 'pending' returning id`,
      [id],
    );
  if (rows.length === 0) return null;
  return em.findOne(WebhookDelivery, { id }, { refresh: true });
}

/**
 * sending → ok | failed with what the peer answered. Returns false when the
 * row was no longer 'sending' (an abandoned-delivery check finished it first).
 */
export async function recordOutcome(em: EntityManager, id: string, outcome: WebhookOutcome): Promise<boolean> {
  const res = await em.getConnection().execute<QueryResult>(
    `update webhook_delivery
        set state = ?, status_code = ?, latency_ms = ?, reply_body = ?, error = ?, request_headers = ?, completed_at = now()
      where id = ? and state = 'sending'`,
    [
      outcome.ok ? 'ok' : 'failed',
      outcome.statusCode,
      outcome.latencyMs,
      outcome.replyBody?.slice(0, REPLY_STORED_CHARS) ?? null,
      outcome.error,
      JSON.stringify(outcome.sentHeaders),
      id,
    ],
    'run',
  );
  return res.affectedRows === 1;
}

/**
 * A delivery claimed by a sender that never recorded an answer (it died while
 * waiting) is failed once `timeoutMs` has passed since it was sent: by then
 * the sender itself would have given up. Waits for that moment when it has
 * not come yet. Returns the row's state afterwards (null: no such row).
 */
export async function settleAbandoned(
  em: EntityManager,
  id: string,
  timeoutMs: number,
  sleep: (ms: number) => Promise<void>,
): Promise<WebhookDelivery['state'] | null> {
  const conn = em.getConnection();
  const [row] = await conn.execute<Array<{ state: WebhookDelivery['state']; remaining_ms: number | null }>>(
    `select state, ceil(extract(epoch from (sent_at + ? * interval '1 millisecond' - now())) * 1000)::int as remaining_ms
       from webhook_delivery where id = ?`,
    [timeoutMs, id],
  );
  if (!row) return null;
  if (row.state !== 'sending') return row.state;
  if (row.remaining_ms !== null && row.remaining_ms > 0) await sleep(Math.min(row.remaining_ms, timeoutMs));
  await conn.execute(
    `update webhook_delivery set state = 'failed', error = ?, completed_at = now()
      where id = ? and state = 'sending' and sent_at <= now() - ? * interval '1 millisecond'`,
    [ABANDONED_ERROR, id, timeoutMs],
    'run',
  );
  const [after] = await conn.execute<Array<{ state: WebhookDelivery['state'] }>>(`select state from webhook_delivery where id = ?`, [id]);
  return after?.state ?? null;
}
