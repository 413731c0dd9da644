/**
 * The webhook dispatcher: a delivery claimed in its store
 * (src/db/stores/deliveries.ts) is sent with `sendWebhook`, and the answer is
 * recorded on its row and in the delivery log (D18). What an answer means
 * (the verdict) stays with the callers.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiEndpointMap, ApiUser, DeliveryKind } from '../db/entities/index.js';
import type { Config } from '../../config/index.js';
import {
  closeResendAttempt,
  deliveryState,
  failSendingAfter,
  recordAttemptRows,
  sendingDeadline,
  type ClaimedDelivery,
  type DeliveryState,
} from '../db/stores/deliveries.js';
import { storableText } from '../text.js';
import { sendWebhook, type WebhookOutcome } from './send.js';
import { configTargets } from './targets.js';
import { webhookDeliveries } from '../metrics/metrics.js';
import { Coalescer, orOneByOne } from '../db/coalesce.js';

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

/** The profile endpoint each kind of delivery goes to (spec 6.1, D8, D12, D20); a test (D23) names its own. */
const ENDPOINT_OF: Partial<Record<DeliveryKind, keyof ApiEndpointMap>> = {
  acceptance: 'respuesta',
  state: 'estado',
  novedad: 'novedad',
  'offer-push': 'oferta',
  'assignment-push': 'oferta',
};

/**
 * Where a claimed delivery goes now: the receiver's endpoint as its profile
 * reads at send time (a retry or a resend follows a changed URL, issue 29
 * item 4), the row's URL when it has no receiver profile to read; null when
 * the profile no longer has that endpoint.
 */
export function currentUrl(d: Pick<ClaimedDelivery, 'kind' | 'url' | 'profile'>): string | null {
  const key = ENDPOINT_OF[d.kind];
  if (!d.profile || !key) return d.url;
  return profileEndpoint({ urlApi: d.profile.urlApi, apiEndpoint: d.profile.apiEndpoint ?? {} }, key);
}

/** The first REPLY_STORED_CHARS of a text, storable (a cut never leaves half a surrogate pair, issue 8.4). */
function stored(text: string | null): string | null {
  return text === null ? null : storableText(text.slice(0, REPLY_STORED_CHARS));
}

export type Verdict = 'ok' | 'failed' | 'pending';

/** A claimed delivery sent, not recorded yet: what the caller judged of the answer. */
export interface SentDelivery {
  id: string;
  /** where it went */
  url: string;
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
export async function sendDelivery(d: ClaimedDelivery, cfg: SendConfig, judge: (outcome: WebhookOutcome) => Verdict): Promise<SentDelivery> {
  const url = currentUrl(d);
  const outcome: WebhookOutcome = url
    ? await sendWebhook(
        { method: d.method, url, headers: d.headers, body: d.body, apiKey: d.apiKey, secret: d.secret, eventId: d.eventId },
        cfg.webhookTimeoutMs,
        configTargets(cfg),
      )
    : { ok: false, statusCode: null, latencyMs: 0, replyBody: null, retryAfterMs: null, error: `the receiver's profile has no ${ENDPOINT_OF[d.kind]} endpoint now`, sentHeaders: {} };
  const verdict = judge(outcome);
  webhookDeliveries.inc({ kind: d.kind, outcome: outcome.ok ? 'ok' : 'failed' });
  const error = outcome.error ?? (verdict === 'ok' ? null : `HTTP ${outcome.statusCode}`);
  return { id: d.id, url: url ?? d.url, outcome, verdict, error };
}

/** Records tries in one statement, whatever their number; the rows recorded, each with its receiver's next delivery. */
async function record(em: EntityManager, sent: readonly SentDelivery[], actor: string): Promise<Array<{ id: string; next: string | null }>> {
  const rows = sent.map(({ id, url, outcome, verdict, error }) => ({
    id,
    url,
    state: verdict,
    status_code: outcome.statusCode,
    latency_ms: outcome.latencyMs,
    reply_body: stored(outcome.replyBody),
    error: stored(error),
    request_headers: outcome.sentHeaders,
  }));
  return recordAttemptRows(em, rows, actor);
}

/** at most two records written at once; the answers that arrive meanwhile go together, up to 64 */
const RECORD_BATCH = { max: 64, concurrency: 2 };

type RecordedRow = { id: string; next: string | null };

/**
 * The records of tries answered about together (issue 32: the 6.1 sends a
 * closing batch starts at once come back together): while two records are
 * being written, the answers that arrive wait and are then written together,
 * in one statement per actor (src/db/coalesce.ts). A closing batch's sends so
 * hold two of the process's PostgreSQL connections, not one each: with one
 * each, a batch of twenty took the whole pool and the next closing waited for
 * it. Alone, a record waits for nothing. A batch PostgreSQL refuses is
 * written again row by row, so one bad row fails only its own record.
 */
export class AttemptRecords {
  private readonly batches: Coalescer<{ sent: SentDelivery; actor: string }, RecordedRow | null>;

  constructor(em: () => EntityManager) {
    this.batches = new Coalescer(
      orOneByOne(async (batch: Array<{ sent: SentDelivery; actor: string }>) => {
        const byActor = new Map<string, SentDelivery[]>();
        for (const { sent, actor } of batch) byActor.set(actor, [...(byActor.get(actor) ?? []), sent]);
        const rows = new Map<string, RecordedRow>();
        for (const [actor, sent] of byActor) for (const r of await record(em(), sent, actor)) rows.set(r.id, r);
        return batch.map(({ sent }) => rows.get(sent.id) ?? null);
      }),
      RECORD_BATCH,
    );
  }

  /** Records one try; resolves with its row (null: it was no longer 'sending', nothing was written). */
  record(sent: SentDelivery, actor: string): Promise<RecordedRow | null> {
    return this.batches.submit({ sent, actor });
  }
}

/**
 * Sends a claimed delivery and records the try on its row: the verdict the
 * caller draws from the answer (`pending` leaves it to be tried again), the
 * status, latency, reply (truncated), error and the headers sent (key masked),
 * and the attempt's own record (D18), in one statement (`records`: with the
 * tries answered about together). Recording is conditional on the row still
 * being 'sending'.
 */
export async function attemptDelivery(
  em: EntityManager,
  d: ClaimedDelivery,
  cfg: SendConfig,
  judge: (outcome: WebhookOutcome) => Verdict,
  actor = 'system',
  records?: AttemptRecords,
): Promise<Attempt> {
  const sent = await sendDelivery(d, cfg, judge);
  const row = records ? await records.record(sent, actor) : (await record(em, [sent], actor))[0];
  const { url, outcome, verdict, error } = sent;
  return { url, outcome, verdict, error, recorded: Boolean(row), next: row?.next ?? null };
}

/**
 * A resend by hand (D18) of a delivery read with `resendableDelivery`: sent
 * once, its answer recorded on its own attempt (`attemptId`, opened with
 * `openResendAttempt`), never on the delivery's row.
 */
export async function resendOnce(em: EntityManager, d: ClaimedDelivery, attemptId: string, cfg: SendConfig): Promise<SentDelivery> {
  const sent = await sendDelivery(d, cfg, (o) => (o.ok ? 'ok' : 'failed'));
  await closeResendAttempt(em, attemptId, {
    url: sent.url,
    request_headers: sent.outcome.sentHeaders,
    status_code: sent.outcome.statusCode,
    latency_ms: sent.outcome.latencyMs,
    reply_body: stored(sent.outcome.replyBody),
    error: stored(sent.error),
  });
  return sent;
}

/**
 * Records tries sent with `sendDelivery` (a batch's, all answered) in one
 * statement whatever their number, as `attemptDelivery` records one.
 */
export async function recordAttempts(em: EntityManager, sent: readonly SentDelivery[], actor = 'system'): Promise<void> {
  if (sent.length) await record(em, sent, actor);
}

/**
 * A delivery claimed by a sender that never recorded an answer (it died while
 * waiting) is failed with `error` once `timeoutMs` has passed since it was
 * sent: by then the sender itself would have given up. Waits for that moment
 * when it has not come yet. Returns the row's state afterwards (null: no such
 * row).
 */
export async function failAbandoned(em: EntityManager, id: string, timeoutMs: number, error: string): Promise<DeliveryState | null> {
  const row = await sendingDeadline(em, id, timeoutMs);
  if (!row) return null;
  if (row.state !== 'sending') return row.state;
  if (row.remaining_ms !== null && row.remaining_ms > 0) await sleep(Math.min(row.remaining_ms, timeoutMs));
  await failSendingAfter(em, id, timeoutMs, error);
  return deliveryState(em, id);
}
