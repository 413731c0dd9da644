/**
 * A webhook delivery is a row with a state (STYLE 10): pending → sending →
 * ok | failed (or back to pending, for a caller that tries again). The row is
 * created in the transaction that decides to notify; a sender claims it in one
 * statement before sending, sends it with `sendWebhook` and records the
 * answer on it. Every read and write of `webhook_delivery` goes through this
 * module (the outbox sweeper's selection queries aside). What differs between
 * kinds stays with their callers: which rows may be claimed (once, D5 and D8;
 * again and in order, D12) and what an answer means.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebhookDelivery, type ApiEndpointMap, type ApiUser, type DeliveryKind, type Offer } from '../db/entities/index.js';
import type { Config } from '../../config/index.js';
import { storableText } from '../text.js';
import { sendWebhook, type WebhookOutcome } from './send.js';
import { configTargets } from './targets.js';
import { webhookDeliveries } from '../metrics/metrics.js';
import { prepared, sql } from '../db/sql.js';

/** What a send needs of the configuration: its timeout and where it may go. */
export type SendConfig = Pick<Config, 'webhookTimeoutMs' | 'outboundAllowPrivate' | 'outboundAllowHosts'>;

/** How much of a reply body (or of an error) is stored on the row and on each attempt (D18: the first 4 KB). */
export const REPLY_STORED_CHARS = 4096;

/**
 * `{url_api}{api_endpoint.<key>}` of an API profile (spec 6.1, D8, D12),
 * joined with exactly one slash; null when either part is missing.
 */
export function profileEndpoint(user: Pick<ApiUser, 'urlApi' | 'apiEndpoint'>, key: keyof ApiEndpointMap): string | null {
  const base = user.urlApi?.trim();
  const path = user.apiEndpoint?.[key]?.trim();
  if (!base || !path) return null;
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

export interface NewDelivery<O = Offer, R = ApiUser> {
  /** the offer it is about: the entity, or its uuid for a batch written without the unit of work */
  offer: O;
  kind: DeliveryKind;
  /** the API user it goes to (entity or id): its x-apikey and webhookSecret are read when sending, never stored */
  receiver: R;
  url: string;
  body: Record<string, unknown>;
  /** unique; keeps a delivery from being planned twice. A random uuid unless given. */
  eventId?: string;
  /** whether it goes as x-event-id (receivers deduplicate with it, D8, D12); the acceptance has exactly the spec's headers (D5) */
  eventHeader: boolean;
}

/** The pending PUT's row, as both the unit of work (createDelivery) and a batch's insertMany (closing.ts) write it. */
export function deliveryRow<O, R>(d: NewDelivery<O, R>) {
  const eventId = d.eventId ?? randomUUID();
  return {
    id: randomUUID(),
    offer: d.offer,
    kind: d.kind,
    eventId,
    url: d.url,
    method: 'PUT',
    requestHeaders: { 'content-type': 'application/json', ...(d.eventHeader ? { 'x-event-id': eventId } : {}) },
    requestBody: d.body,
    receiver: d.receiver,
    state: 'pending' as const,
    attempts: 0,
    createdAt: new Date(),
  };
}

/** A row as a batch writes it without the unit of work: the offer's uuid, the receiver's id. */
export type DeliveryRow = ReturnType<typeof deliveryRow<string, number>>;
/** A row written already claimed (claimedAtWrite). */
type ClaimedRow = Omit<DeliveryRow, 'state'> & { state: 'sending'; sentAt: Date };

/**
 * A pending row claimed as it is written, in the transaction that plans it:
 * sending, its first attempt, sent now. For a sender that holds a place to
 * send it right after the commit (the closing batch's 6.1): the claim costs
 * no statement of its own, and it is still claimed once. What the send needs
 * comes with it; the receiver's key and secret are read with the batch.
 */
export function claimedAtWrite(row: DeliveryRow, receiver: { apiKey: string | null; secret: string | null }): { row: ClaimedRow; claimed: ClaimedDelivery } {
  const claimed: ClaimedDelivery = {
    id: row.id,
    url: row.url,
    method: row.method,
    headers: row.requestHeaders,
    body: row.requestBody,
    attempts: 1,
    eventId: row.eventId,
    kind: row.kind,
    offerUuid: row.offer,
    apiKey: receiver.apiKey,
    secret: receiver.secret,
  };
  return { row: { ...row, state: 'sending', attempts: 1, sentAt: new Date() }, claimed };
}

/** Rows given as one JSON array, inserted in its order. */
const INSERT_DELIVERIES = prepared(`insert into webhook_delivery (id, offer_uuid, kind, event_id, url, method, request_headers, request_body, receiver_id, state, attempts, created_at, sent_at)
     select r.id, r.offer_uuid, r.kind, r.event_id, r.url, r.method, r.request_headers, r.request_body, r.receiver_id, r.state, r.attempts,
            r.created_at, r.sent_at
       from jsonb_array_elements($1::jsonb) with ordinality as e(j, n),
            jsonb_to_record(e.j) as r(id uuid, offer_uuid uuid, kind text, event_id text, url text, method text, request_headers jsonb,
                                      request_body jsonb, receiver_id int, state text, attempts int, created_at timestamptz, sent_at timestamptz)
      order by e.n`);

/**
 * The rows of PUTs (deliveryRow, or claimedAtWrite's) in one INSERT, outside
 * the unit of work, through the driver (src/db/sql.ts), in the order given:
 * `seq` follows it, and D12 sends an offer's notices to one URL in that order.
 */
export async function insertDeliveries(em: EntityManager, rows: Array<DeliveryRow | ClaimedRow>): Promise<void> {
  if (!rows.length) return;
  const records = rows.map((r) => ({
    id: r.id,
    offer_uuid: r.offer,
    kind: r.kind,
    event_id: r.eventId,
    url: r.url,
    method: r.method,
    request_headers: r.requestHeaders,
    request_body: r.requestBody,
    receiver_id: r.receiver,
    state: r.state,
    attempts: r.attempts,
    created_at: r.createdAt.toISOString(),
    sent_at: 'sentAt' in r ? r.sentAt.toISOString() : null,
  }));
  await sql(
    em,
    INSERT_DELIVERIES,
    [JSON.stringify(records)],
  );
}

/** Adds a pending PUT to the unit of work; the caller's flush/commit writes it. */
export function createDelivery(em: EntityManager, d: NewDelivery): WebhookDelivery {
  return em.create(WebhookDelivery, deliveryRow(d));
}

/** A row claimed for sending, with its receiver's key and secret as they are now. */
export interface ClaimedDelivery {
  id: string;
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /** this try included */
  attempts: number;
  /** webhook-id (D17) = x-event-id */
  eventId: string;
  kind: DeliveryKind;
  /** the offer it is about, when any */
  offerUuid: string | null;
  apiKey: string | null;
  secret: string | null;
}

/** A claim's move (sending, one more attempt) and what it returns: a ClaimedDelivery, with the receiver's key and secret. */
const CLAIM_SET = `update webhook_delivery d set state = 'sending', attempts = d.attempts + 1, sent_at = now()`;
const CLAIM_RETURNING = `returning d.id, d.url, d.method, d.request_headers as headers, d.request_body as body, d.attempts, d.event_id as "eventId", d.kind,
                d.offer_uuid as "offerUuid",
                (select u.api_key from api_user u where u.id = d.receiver_id) as "apiKey",
                (select u.webhook_secret from api_user u where u.id = d.receiver_id) as secret`;

/**
 * Marks the rows that match `where` (a condition on `d`, the webhook_delivery
 * row) sending, one more attempt each, in one statement; returns them. A row
 * another caller claimed first does not match, so is not returned.
 */
export async function claimDeliveries(em: EntityManager, where: string, params: unknown[]): Promise<ClaimedDelivery[]> {
  return em.getConnection().execute<ClaimedDelivery[]>(`${CLAIM_SET} where ${where} ${CLAIM_RETURNING}`, params);
}

const CLAIM_PENDING_OF_OFFERS = prepared(`${CLAIM_SET} where d.offer_uuid = any($1::uuid[]) and d.kind = $2 and d.state = 'pending' ${CLAIM_RETURNING}`);

/** `claimDeliveries` of the pending rows of `kind` of some offers (a distribution batch's pushes), prepared, through the driver. */
export async function claimPendingOfOffers(em: EntityManager, offerUuids: readonly string[], kind: DeliveryKind): Promise<ClaimedDelivery[]> {
  return sql<ClaimedDelivery>(em, CLAIM_PENDING_OF_OFFERS, [offerUuids, kind]);
}

/** The first REPLY_STORED_CHARS of a text, storable (a cut never leaves half a surrogate pair, issue 8.4). */
function stored(text: string | null): string | null {
  return text === null ? null : storableText(text.slice(0, REPLY_STORED_CHARS));
}

export type Verdict = 'ok' | 'failed' | 'pending';

/** A claimed delivery sent, not recorded yet: what the caller judged of the answer. */
export interface SentDelivery {
  id: string;
  outcome: WebhookOutcome;
  verdict: Verdict;
  /** as stored: why the try failed (`HTTP <status>`, a timeout, a refused connection...), null when ok */
  error: string | null;
}

/** A try sent and recorded. */
export interface Attempt extends Omit<SentDelivery, 'id'> {
  /** false when the row was no longer 'sending' (someone else finished it): nothing was written */
  recorded: boolean;
  /** the next unfinished delivery of the same offer to the same URL, which may go now (D12 orders them) */
  next: string | null;
}

/** Sends a claimed delivery once and judges the answer (`pending` leaves it to be tried again); records nothing. */
export async function sendClaimed(d: ClaimedDelivery, cfg: SendConfig, judge: (outcome: WebhookOutcome) => Verdict): Promise<SentDelivery> {
  const outcome = await sendWebhook(
    { method: d.method, url: d.url, headers: d.headers, body: d.body, apiKey: d.apiKey, secret: d.secret, eventId: d.eventId },
    cfg.webhookTimeoutMs,
    configTargets(cfg),
  );
  const verdict = judge(outcome);
  webhookDeliveries.inc({ kind: d.kind, outcome: outcome.ok ? 'ok' : 'failed' });
  const error = outcome.error ?? (verdict === 'ok' ? null : `HTTP ${outcome.statusCode}`);
  return { id: d.id, outcome, verdict, error };
}

/**
 * Tries' outcomes on their rows and in the delivery log (D18), given as one
 * JSON array: each row only while it is still 'sending', with the next
 * unfinished delivery of the same offer to the same URL (D12 sends them in
 * that order).
 */
const RECORD_ATTEMPTS = prepared(`with sent as (
       select * from jsonb_to_recordset($1::jsonb)
         as s(id uuid, state text, status_code int, latency_ms int, reply_body text, error text, request_headers jsonb)
     ), done as (
       update webhook_delivery d
          set state = s.state, status_code = s.status_code, latency_ms = s.latency_ms, reply_body = s.reply_body, error = s.error,
              request_headers = s.request_headers, completed_at = case when s.state = 'pending' then null else now() end
         from sent s
        where d.id = s.id and d.state = 'sending'
        returning d.id, d.attempts, d.request_headers, d.status_code, d.latency_ms, d.reply_body, d.error,
                  (select e.id from webhook_delivery e
                    where e.offer_uuid = d.offer_uuid and e.url = d.url and e.state in ('pending', 'sending') and e.seq > d.seq
                    order by e.seq limit 1) as next
     ), logged as (
       insert into webhook_attempt (delivery_id, attempt, actor, request_headers, status_code, latency_ms, reply_body, error)
       select id, attempts, $2, request_headers, status_code, latency_ms, reply_body, error from done
     )
     select id, next from done`);

/** Records tries in one statement, whatever their number; the rows recorded, each with its receiver's next delivery. */
async function record(em: EntityManager, sent: readonly SentDelivery[], actor: string): Promise<Array<{ id: string; next: string | null }>> {
  const rows = sent.map(({ id, outcome, verdict, error }) => ({
    id,
    state: verdict,
    status_code: outcome.statusCode,
    latency_ms: outcome.latencyMs,
    reply_body: stored(outcome.replyBody),
    error: stored(error),
    request_headers: outcome.sentHeaders,
  }));
  return sql<{ id: string; next: string | null }>(em, RECORD_ATTEMPTS, [JSON.stringify(rows), actor]);
}

/**
 * Sends a claimed delivery and records the try on its row: the verdict the
 * caller draws from the answer (`pending` leaves it to be tried again), the
 * status, latency, reply (truncated), error and the headers sent (key masked),
 * and the attempt's own record (D18), in one statement. Recording is
 * conditional on the row still being 'sending'.
 */
export async function attemptDelivery(
  em: EntityManager,
  d: ClaimedDelivery,
  cfg: SendConfig,
  judge: (outcome: WebhookOutcome) => Verdict,
  actor = 'system',
): Promise<Attempt> {
  const { outcome, verdict, error } = await sendClaimed(d, cfg, judge);
  const [row] = await record(em, [{ id: d.id, outcome, verdict, error }], actor);
  return { outcome, verdict, error, recorded: Boolean(row), next: row?.next ?? null };
}

/**
 * Records tries sent with `sendClaimed` (a batch's, all answered) in one
 * statement whatever their number, as `attemptDelivery` records one.
 */
export async function recordAttempts(em: EntityManager, sent: readonly SentDelivery[], actor = 'system'): Promise<void> {
  if (sent.length) await record(em, sent, actor);
}

type DeliveryState = WebhookDelivery['state'];

/** A row still to send or being sent. */
const UNFINISHED = `('pending', 'sending')`;

/**
 * D18: claims a finished delivery (ok or failed) for a deliberate second send
 * by an operator; a delivery still pending or being sent is not taken.
 */
export async function claimFinished(em: EntityManager, id: string): Promise<ClaimedDelivery | null> {
  const [claimed] = await claimDeliveries(em, `d.id = ? and d.state in ('ok', 'failed')`, [id]);
  return claimed ?? null;
}

/** D5, D8: claims one delivery still pending (sent once, never again). */
export async function claimPending(em: EntityManager, id: string): Promise<ClaimedDelivery | null> {
  const [claimed] = await claimDeliveries(em, `d.id = ? and d.state = 'pending'`, [id]);
  return claimed ?? null;
}

/**
 * D12: claims an unfinished delivery of one of `kinds` unless an earlier one
 * of the same offer to the same URL is unfinished (transition order).
 */
export async function claimInOrder(em: EntityManager, id: string, kinds: readonly DeliveryKind[]): Promise<ClaimedDelivery | null> {
  const [claimed] = await claimDeliveries(
    em,
    `d.id = ? and d.kind in (?) and d.state in ${UNFINISHED}
       and not exists (select 1 from webhook_delivery e
                        where e.offer_uuid = d.offer_uuid and e.url = d.url and e.state in ${UNFINISHED} and e.seq < d.seq)`,
    [id, [...kinds]],
  );
  return claimed ?? null;
}

/** Whether the delivery exists, is one of `kinds` and is still to send or being sent. */
export async function isUnfinished(em: EntityManager, id: string, kinds: readonly DeliveryKind[]): Promise<boolean> {
  const rows = await em.execute(`select 1 from webhook_delivery where id = ? and kind in (?) and state in ${UNFINISHED}`, [id, [...kinds]]);
  return rows.length > 0;
}

/** The ids of an offer's deliveries of `kind` still to send or being sent. */
export async function unfinishedOf(em: EntityManager, offerUuid: string, kind: DeliveryKind): Promise<string[]> {
  const rows = await em.execute<Array<{ id: string }>>(
    `select id from webhook_delivery where offer_uuid = ? and kind = ? and state in ${UNFINISHED}`,
    [offerUuid, kind],
  );
  return rows.map((d) => d.id);
}

/** An offer's state and its unsent deliveries of one kind. */
const STATE_AND_UNFINISHED = prepared(`select o.state,
            array(select d.id::text from webhook_delivery d where d.offer_uuid = o.uuid and d.kind = $1 and d.state in ${UNFINISHED}) as unfinished
       from offer o where o.uuid = $2`);

/**
 * An offer's state and the ids of its deliveries of `kind` still to send or
 * being sent, in one read (one snapshot: deliveries written with the state
 * are seen with it). Null when there is no such offer.
 */
export async function offerStateAndUnfinished(
  em: EntityManager,
  offerUuid: string,
  kind: DeliveryKind,
): Promise<{ state: string; unfinished: string[] } | null> {
  const [row] = await sql<{ state: string; unfinished: string[] }>(
    em,
    STATE_AND_UNFINISHED,
    [kind, offerUuid],
  );
  return row ?? null;
}

/** The row, read afresh (its outcome after a try). */
export async function loadDelivery(em: EntityManager, id: string): Promise<WebhookDelivery | null> {
  return em.findOne(WebhookDelivery, { id }, { refresh: true });
}

/**
 * Fails, in the caller's transaction, an offer's deliveries of `kind` that
 * were not claimed yet (`error` says why); a claimed one is left to its sender.
 */
export async function failPending(em: EntityManager, offerUuid: string, kind: DeliveryKind, error: string): Promise<void> {
  await em.getConnection().execute(
    `update webhook_delivery set state = 'failed', error = ?, completed_at = now()
      where offer_uuid = ? and kind = ? and state = 'pending'`,
    [error, offerUuid, kind],
    'run',
    em.getTransactionContext(),
  );
}

/**
 * A delivery claimed by a sender that never recorded an answer (it died while
 * waiting) is failed with `error` once `timeoutMs` has passed since it was
 * sent: by then the sender itself would have given up. Waits for that moment
 * when it has not come yet. Returns the row's state afterwards (null: no such
 * row).
 */
export async function failAbandoned(em: EntityManager, id: string, timeoutMs: number, error: string): Promise<DeliveryState | null> {
  const conn = em.getConnection();
  const [row] = await conn.execute<Array<{ state: DeliveryState; remaining_ms: number | null }>>(
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
    [error, id, timeoutMs],
    'run',
  );
  const [after] = await conn.execute<Array<{ state: DeliveryState }>>(`select state from webhook_delivery where id = ?`, [id]);
  return after?.state ?? null;
}
