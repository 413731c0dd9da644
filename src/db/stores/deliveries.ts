/**
 * The `webhook_delivery` and `webhook_attempt` tables: every statement on
 * them. A delivery is a row with a state (STYLE 10): pending → sending →
 * ok | failed (or back to pending, for a caller that tries again). The row is
 * created in the transaction that decides to notify; a sender claims it in one
 * statement before sending and records the answer on it (the dispatcher,
 * src/webhooks/dispatch.ts). Which rows may be claimed (once, D5 and D8;
 * again and in order, D12) is each claim's own statement here; what an answer
 * means stays with the callers. Reads of other tables' stores that look at
 * deliveries: offerStateAndUnfinished, distributionSeen, undistributedPage
 * (./offers.ts) and recipientTimeline (./recipients.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import { WebhookDelivery, type ApiEndpointMap, type ApiUser, type DeliveryKind, type Offer } from '../entities/index.js';
import { prepared, sql } from '../sql.js';
import { AGO, after, pageParams, type KeysetCursor, type KeysetRow } from './keyset.js';

export type DeliveryState = WebhookDelivery['state'];

export interface NewDelivery<O = Offer, R = ApiUser> {
  /** the offer it is about: the entity, or its uuid for a batch written without the unit of work (null: a test, D23) */
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

/** The pending PUT's row, as both the unit of work (createDelivery) and a batch's insertDeliveries write it. */
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
export type DeliveryRow = ReturnType<typeof deliveryRow<string | null, number>>;
/** A row written already claimed (claimedAtWrite). */
export type ClaimedRow = Omit<DeliveryRow, 'state'> & { state: 'sending'; sentAt: Date };
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
  /** the receiver's outbound key (x-apikey), never its inbound one (D24) */
  apiKey: string | null;
  secret: string | null;
  /** the receiver's profile as it is now, whose URL a retry or resend goes to; null: the row's own URL */
  profile: { urlApi: string | null; apiEndpoint: ApiEndpointMap | null } | null;
}

/**
 * What the send of a pending row needs, built as the row is written, for a
 * sender that holds a place to send it right after the commit (the closing
 * batch's 6.1): its first attempt. The row itself stays pending: it is
 * claimed only just before its request goes out (markSending), so a sender
 * that dies before then leaves it to whoever recovers it, who sends it (issue
 * 30, item 7: at most once costs only what is on the wire). The receiver's
 * key and secret are read with the batch.
 */
export function toSend(row: DeliveryRow, receiver: { apiKey: string | null; secret: string | null }): ClaimedDelivery {
  return {
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
    // its URL was read from the profile in this very transaction
    profile: null,
  };
}

/**
 * A pending row claimed as it is written, for a caller that sends it at once in the same request (the test
 * notification, D23): sending, its first attempt, sent now. Not for a batch written before its sends start
 * (toSend and markSending: a claim made before the request is on its way is lost with a process that dies).
 */
export function claimedAtWrite(row: DeliveryRow, receiver: { apiKey: string | null; secret: string | null }): { row: ClaimedRow; claimed: ClaimedDelivery } {
  return { row: { ...row, state: 'sending', attempts: 1, sentAt: new Date() }, claimed: toSend(row, receiver) };
}

const MARK_SENDING = prepared(`update webhook_delivery d set state = 'sending', attempts = d.attempts + 1, sent_at = now()
     where d.id = any($1::uuid[]) and d.state = 'pending' returning d.id`);

/**
 * D5: claims, in one statement, the pending rows whose requests go out now, together (toSend's); returns the ids
 * claimed. A row someone else claimed meanwhile is not returned: its sender is that one.
 */
export async function markSending(em: EntityManager, ids: readonly string[]): Promise<string[]> {
  if (!ids.length) return [];
  return (await sql<{ id: string }>(em, MARK_SENDING, [ids])).map((r) => r.id);
}

/**
 * Inserts the rows given as one JSON array (deliveryRecords') in parameter `$n`, in its order: `seq` follows it, and
 * D12 sends an offer's notices to one URL in that order. A fragment, so that a statement of another table that
 * plans deliveries with its own writes (the offers' moves, ./offers.ts) inserts them in the same round trip.
 */
export function insertDeliveryRecords(n: number): string {
  return `insert into webhook_delivery (id, offer_uuid, kind, event_id, url, method, request_headers, request_body, receiver_id, state, attempts, created_at, sent_at)
     select r.id, r.offer_uuid, r.kind, r.event_id, r.url, r.method, r.request_headers, r.request_body, r.receiver_id, r.state, r.attempts,
            r.created_at, r.sent_at
       from jsonb_array_elements($${n}::jsonb) with ordinality as e(j, n),
            jsonb_to_record(e.j) as r(id uuid, offer_uuid uuid, kind text, event_id text, url text, method text, request_headers jsonb,
                                      request_body jsonb, receiver_id int, state text, attempts int, created_at timestamptz, sent_at timestamptz)
      order by e.n`;
}

const INSERT_DELIVERIES = prepared(insertDeliveryRecords(1));

/** The rows of PUTs (deliveryRow's, or claimedAtWrite's) as insertDeliveryRecords reads them: one JSON array. */
export function deliveryRecords(rows: ReadonlyArray<DeliveryRow | ClaimedRow>): string {
  return JSON.stringify(
    rows.map((r) => ({
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
    })),
  );
}

/**
 * The rows of PUTs (deliveryRow's, or claimedAtWrite's) in one INSERT, outside
 * the unit of work, through the driver (src/db/sql.ts), in the order given.
 */
export async function insertDeliveries(em: EntityManager, rows: ReadonlyArray<DeliveryRow | ClaimedRow>): Promise<void> {
  if (!rows.length) return;
  await sql(em, INSERT_DELIVERIES, [deliveryRecords(rows)]);
}

/** Adds a pending PUT to the unit of work; the caller's flush/commit writes it. */
export function createDelivery(em: EntityManager, d: NewDelivery): WebhookDelivery {
  return em.create(WebhookDelivery, deliveryRow(d));
}

/** A claim's move (sending, one more attempt) and what it returns: a ClaimedDelivery, with the receiver's key and secret. */
const CLAIM_SET = `update webhook_delivery d set state = 'sending', attempts = d.attempts + 1, sent_at = now()`;
const CLAIM_RETURNING = `returning d.id, d.url, d.method, d.request_headers as headers, d.request_body as body, d.attempts, d.event_id as "eventId", d.kind,
                d.offer_uuid as "offerUuid",
                (select u.outbound_key from api_user u where u.id = d.receiver_id) as "apiKey",
                (select u.webhook_secret from api_user u where u.id = d.receiver_id) as secret,
                (select json_build_object('urlApi', u.url_api, 'apiEndpoint', u.api_endpoint) from api_user u where u.id = d.receiver_id) as profile`;

/**
 * Marks the rows that match `where` (a condition on `d`, the webhook_delivery
 * row) sending, one more attempt each, in one statement; returns them. A row
 * another caller claimed first does not match, so is not returned.
 */
async function claimDeliveries(em: EntityManager, where: string, params: unknown[]): Promise<ClaimedDelivery[]> {
  return em.getConnection().execute<ClaimedDelivery[]>(`${CLAIM_SET} where ${where} ${CLAIM_RETURNING}`, params);
}

const CLAIM_PENDING_OF_OFFERS = prepared(`${CLAIM_SET} where d.offer_uuid = any($1::uuid[]) and d.kind = $2 and d.state = 'pending' ${CLAIM_RETURNING}`);

/** Claims the pending rows of `kind` of some offers (a distribution batch's pushes), prepared, through the driver. */
export async function claimPendingOfOffers(em: EntityManager, offerUuids: readonly string[], kind: DeliveryKind): Promise<ClaimedDelivery[]> {
  return sql<ClaimedDelivery>(em, CLAIM_PENDING_OF_OFFERS, [offerUuids, kind]);
}

/** A row still to send or being sent. */
const UNFINISHED = `('pending', 'sending')`;

/**
 * D18, issue 29 item 9: a finished delivery (ok or failed) as a resend by
 * hand sends it, read without claiming it: a resend never touches the row
 * (the 6.1's is D5's record of the acceptance), so a process that dies
 * mid-resend leaves nothing for the sweeper to settle. Null: no such row;
 * `state` says whether it is finished.
 */
export async function resendableDelivery(em: EntityManager, id: string): Promise<(ClaimedDelivery & { state: DeliveryState }) | null> {
  const [row] = await em.execute<Array<ClaimedDelivery & { state: DeliveryState }>>(
    `select d.id, d.url, d.method, d.request_headers as headers, d.request_body as body, d.attempts, d.event_id as "eventId", d.kind,
            d.offer_uuid as "offerUuid", d.state,
            (select u.outbound_key from api_user u where u.id = d.receiver_id) as "apiKey",
            (select u.webhook_secret from api_user u where u.id = d.receiver_id) as secret,
            (select json_build_object('urlApi', u.url_api, 'apiEndpoint', u.api_endpoint) from api_user u where u.id = d.receiver_id) as profile
       from webhook_delivery d where d.id = ?`,
    [id],
  );
  return row ?? null;
}

/** What an attempt of a resend says until its answer is recorded (a process that died mid-resend leaves it so). */
export const RESEND_IN_FLIGHT = 'resend in flight: no answer recorded';

/**
 * Opens a resend's own attempt in the delivery log before it is sent (its
 * number after the delivery's last), unless another resend of the same
 * delivery is still in flight (opened less than `inFlightMs` ago, unanswered).
 */
export async function openResendAttempt(em: EntityManager, deliveryId: string, actor: string, inFlightMs: number): Promise<{ id: string; attempt: number } | null> {
  const [row] = await sql<{ id: string; attempt: number }>(
    em,
    `insert into webhook_attempt (delivery_id, attempt, actor, request_headers, error)
     select d.id, greatest(d.attempts, coalesce((select max(a.attempt) from webhook_attempt a where a.delivery_id = d.id), 0)) + 1, $2, '{}'::jsonb, $3
       from webhook_delivery d
      where d.id = $1
        and not exists (select 1 from webhook_attempt a
                         where a.delivery_id = d.id and a.error = $3 and a.status_code is null
                           and a.at > now() - make_interval(secs => $4::double precision / 1000))
     returning id, attempt`,
    [deliveryId, actor, RESEND_IN_FLIGHT, inFlightMs],
  );
  return row ?? null;
}

/** Records a resend's answer on its own attempt (the delivery's row stays as it was). */
export async function closeResendAttempt(em: EntityManager, attemptId: string, r: Omit<AttemptRecord, 'id' | 'state'>): Promise<void> {
  await sql(
    em,
    `update webhook_attempt set request_headers = $2::jsonb, status_code = $3, latency_ms = $4, reply_body = $5, error = $6, url = $7 where id = $1`,
    [attemptId, JSON.stringify(r.request_headers), r.status_code, r.latency_ms, r.reply_body, r.error, r.url],
  );
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

/** A try's outcome as it is stored on its row and in its attempt (texts already cut to what is stored). */
export interface AttemptRecord {
  id: string;
  state: 'ok' | 'failed' | 'pending';
  status_code: number | null;
  latency_ms: number | null;
  reply_body: string | null;
  error: string | null;
  request_headers: Record<string, string>;
  /** where the try went (the receiver's URL at send time) */
  url: string;
}

/**
 * Tries' outcomes on their rows and in the delivery log (D18), given as one
 * JSON array: each row only while it is still 'sending', with the next
 * unfinished delivery of the same offer to the same URL (D12 sends them in
 * that order).
 */
const RECORD_ATTEMPTS = prepared(`with sent as (
       select * from jsonb_to_recordset($1::jsonb)
         as s(id uuid, state text, status_code int, latency_ms int, reply_body text, error text, request_headers jsonb, url text)
     ), done as (
       update webhook_delivery d
          set state = s.state, status_code = s.status_code, latency_ms = s.latency_ms, reply_body = s.reply_body, error = s.error,
              request_headers = s.request_headers, completed_at = case when s.state = 'pending' then null else now() end
         from sent s
        where d.id = s.id and d.state = 'sending'
        returning d.id, d.attempts, d.request_headers, d.status_code, d.latency_ms, d.reply_body, d.error, s.url,
                  (select e.id from webhook_delivery e
                    where e.offer_uuid = d.offer_uuid and e.url = d.url and e.state in ('pending', 'sending') and e.seq > d.seq
                    order by e.seq limit 1) as next
     ), logged as (
       insert into webhook_attempt (delivery_id, attempt, actor, request_headers, status_code, latency_ms, reply_body, error, url)
       select id, attempts, $2, request_headers, status_code, latency_ms, reply_body, error, url from done
     )
     select id, next from done`);

/** Records tries in one statement, whatever their number; the rows recorded, each with its receiver's next delivery. */
export async function recordAttemptRows(em: EntityManager, rows: readonly AttemptRecord[], actor: string): Promise<Array<{ id: string; next: string | null }>> {
  return sql<{ id: string; next: string | null }>(em, RECORD_ATTEMPTS, [JSON.stringify(rows), actor]);
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

/** A row's state and, counted from when it was sent, how long until `timeoutMs` has passed (null: never sent). */
export async function sendingDeadline(
  em: EntityManager,
  id: string,
  timeoutMs: number,
): Promise<{ state: DeliveryState; remaining_ms: number | null } | null> {
  const [row] = await em.getConnection().execute<Array<{ state: DeliveryState; remaining_ms: number | null }>>(
    `select state, ceil(extract(epoch from (sent_at + ? * interval '1 millisecond' - now())) * 1000)::int as remaining_ms
       from webhook_delivery where id = ?`,
    [timeoutMs, id],
  );
  return row ?? null;
}

/** Fails a row still 'sending' once `timeoutMs` has passed since it was sent (`error` says why). */
export async function failSendingAfter(em: EntityManager, id: string, timeoutMs: number, error: string): Promise<void> {
  await em.getConnection().execute(
    `update webhook_delivery set state = 'failed', error = ?, completed_at = now()
      where id = ? and state = 'sending' and sent_at <= now() - ? * interval '1 millisecond'`,
    [error, id, timeoutMs],
    'run',
  );
}

/** A row's state (null: no such row). */
export async function deliveryState(em: EntityManager, id: string): Promise<DeliveryState | null> {
  const [after] = await em.getConnection().execute<Array<{ state: DeliveryState }>>(`select state from webhook_delivery where id = ?`, [id]);
  return after?.state ?? null;
}

// The delivery log (D18): pages of deliveries, their attempts, receivers' health, retention.

/** A delivery as the log reads it. */
export interface LoggedDeliveryRow {
  id: string;
  event_id: string;
  offer_uuid: string | null;
  kind: string;
  url: string;
  state: string;
  attempts: number;
  request_body: Record<string, unknown>;
  created_at: Date;
  completed_at: Date | null;
  status_code: number | null;
  latency_ms: number | null;
}

/** An attempt as the log reads it. */
export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  actor: string;
  at: Date;
  request_headers: Record<string, string>;
  status_code: number | null;
  latency_ms: number | null;
  reply_body: string | null;
  error: string | null;
  /** where it went (null: attempts recorded before this was kept) */
  url: string | null;
}

const COLUMNS = `id, event_id, offer_uuid, kind, url, state, attempts, request_body, created_at, completed_at, status_code, latency_ms`;

/** The attempts of some deliveries, in the order they were made. */
export async function attemptsOf(em: EntityManager, deliveryIds: readonly string[]): Promise<AttemptRow[]> {
  return em.execute<AttemptRow[]>(`select * from webhook_attempt where delivery_id in (?) order by id`, [deliveryIds]);
}

/** A page of a receiver's deliveries, newest first, filtered by offer and state, and how many match in all (two statements at once). */
export async function receiverDeliveryPage(
  em: EntityManager,
  receiverId: number,
  q: { uuid?: string; estado?: string },
  limit: number,
  offset: number,
): Promise<{ rows: LoggedDeliveryRow[]; total: number }> {
  const where = `receiver_id = ? and (?::uuid is null or offer_uuid = ?::uuid) and (?::text is null or state = ?::text)`;
  const params = [receiverId, q.uuid ?? null, q.uuid ?? null, q.estado ?? null, q.estado ?? null];
  const [rows, [{ n }]] = await Promise.all([
    em.execute<LoggedDeliveryRow[]>(`select ${COLUMNS} from webhook_delivery where ${where} order by created_at desc, id limit ? offset ?`, [
      ...params,
      limit,
      offset,
    ]),
    em.execute<Array<{ n: string }>>(`select count(*) as n from webhook_delivery where ${where}`, params),
  ]);
  return { rows, total: Number(n) };
}

/** Every delivery of an offer, in the order they were planned. */
export async function offerDeliveryRows(em: EntityManager, offerUuid: string): Promise<LoggedDeliveryRow[]> {
  return em.execute<LoggedDeliveryRow[]>(`select ${COLUMNS} from webhook_delivery where offer_uuid = ? order by seq`, [offerUuid]);
}

/** Per endpoint URL: attempts in the last `sinceMinutes`, how many failed (no 2xx), the last status, worst first. */
export async function attemptHealthRows(
  em: EntityManager,
  sinceMinutes: number,
): Promise<Array<{ url: string; n: string; failed: string; last_status: number | null; last_at: Date }>> {
  return em.execute<Array<{ url: string; n: string; failed: string; last_status: number | null; last_at: Date }>>(
    `select d.url, count(*) as n,
            count(*) filter (where a.status_code is null or a.status_code not between 200 and 299) as failed,
            (array_agg(a.status_code order by a.id desc))[1] as last_status,
            max(a.at) as last_at
       from webhook_attempt a join webhook_delivery d on d.id = a.delivery_id
      where a.at > now() - make_interval(mins => ?)
      group by d.url
      order by count(*) filter (where a.status_code is null or a.status_code not between 200 and 299)::float / count(*) desc, d.url`,
    [sinceMinutes],
  );
}

/** Deletes at most `batch` attempts older than `days`; how many went. */
export async function pruneAttemptBatch(em: EntityManager, days: number, batch: number): Promise<number> {
  const res = await em.execute<Array<{ id: string }>>(
    `delete from webhook_attempt where id in (select id from webhook_attempt where at < now() - make_interval(days => ?) limit ?) returning id`,
    [days, batch],
  );
  return res.length;
}

/** Deletes at most `batch` finished deliveries older than `days`; how many went. */
export async function pruneFinishedDeliveryBatch(em: EntityManager, days: number, batch: number): Promise<number> {
  const res = await em.execute<Array<{ id: string }>>(
    `delete from webhook_delivery where id in (
       select id from webhook_delivery where created_at < now() - make_interval(days => ?) and state in ('ok', 'failed') limit ?)
     returning id`,
    [days, batch],
  );
  return res.length;
}

// The outbox sweeper's lookups (src/domain/outbox/sweep.ts), in keyset pages (keyset.ts).

const STALE_NOTIFICATIONS = `
  select id, created_at::text as k from webhook_delivery
   where state in ('pending', 'sending') and kind in ('state', 'novedad', 'assignment-push') and created_at < ${AGO}
     and ${after('created_at', 'id')}
   order by created_at, id limit ?`;

const STALE_ACCEPTANCES = `
  select id, created_at::text as k from webhook_delivery
   where state in ('pending', 'sending') and kind = 'acceptance' and created_at < ${AGO}
     and (state = 'pending' or sent_at < ${AGO})
     and ${after('created_at', 'id')}
   order by created_at, id limit ?`;

/** State, novelty and assignment-push deliveries still pending (or stuck sending) `agoMs` after creation. */
export async function staleNotificationsPage(em: EntityManager, agoMs: number, cursor: KeysetCursor, limit: number): Promise<KeysetRow[]> {
  return em.execute<KeysetRow[]>(STALE_NOTIFICATIONS, [agoMs, ...pageParams(cursor, limit)]);
}

/** Acceptance notifications (6.1) still pending `agoMs` after creation, or sending for longer than `timeoutMs`. */
export async function staleAcceptancesPage(em: EntityManager, agoMs: number, timeoutMs: number, cursor: KeysetCursor, limit: number): Promise<KeysetRow[]> {
  return em.execute<KeysetRow[]>(STALE_ACCEPTANCES, [agoMs, timeoutMs, ...pageParams(cursor, limit)]);
}
