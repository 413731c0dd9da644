/**
 * The delivery log (D18), read set-based: a page of deliveries and all their
 * attempts in two statements, whatever the page size. A generator reads only
 * the deliveries addressed to it (GET /webhooks/deliveries); operators read an
 * offer's deliveries on its timeline and every receiver's recent health.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { offsetOfPage } from '../paging.js';
import {
  attemptHealthRows,
  attemptsOf,
  offerDeliveryRows,
  pruneAttemptBatch,
  pruneFinishedDeliveryBatch,
  receiverDeliveryPage,
  type LoggedDeliveryRow,
} from '../../db/stores/deliveries.js';

export interface AttemptView {
  intento: number;
  actor: string;
  fecha: string;
  requestHeaders: Record<string, string>;
  statusCode: number | null;
  latenciaMs: number | null;
  respuesta: string | null;
  error: string | null;
}

export interface DeliveryView {
  id: string;
  eventId: string;
  uuid: string | null;
  kind: string;
  url: string;
  estado: string;
  intentos: number;
  requestBody: Record<string, unknown>;
  creadaEn: string;
  terminadaEn: string | null;
  statusCode: number | null;
  latenciaMs: number | null;
  attempts: AttemptView[];
}

export const DELIVERY_STATES = ['pending', 'sending', 'ok', 'failed'] as const;
export const PAGE_SIZE = 50;

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** Who made an attempt, as a tenant may see it: `system`, or `operator` without naming the person (D15, D18). */
export const tenantActor = (actor: string): string => (actor.startsWith('operator:') ? 'operator' : actor);

async function withAttempts(em: EntityManager, rows: LoggedDeliveryRow[], actorOf: (actor: string) => string = (a) => a): Promise<DeliveryView[]> {
  const attempts = rows.length ? await attemptsOf(em, rows.map((r) => r.id)) : [];
  return rows.map((r) => ({
    id: r.id,
    eventId: r.event_id,
    uuid: r.offer_uuid,
    kind: r.kind,
    url: r.url,
    estado: r.state,
    intentos: r.attempts,
    requestBody: r.request_body,
    creadaEn: iso(r.created_at)!,
    terminadaEn: iso(r.completed_at),
    statusCode: r.status_code,
    latenciaMs: r.latency_ms,
    attempts: attempts
      .filter((a) => a.delivery_id === r.id)
      .map((a) => ({
        intento: a.attempt,
        actor: actorOf(a.actor),
        fecha: iso(a.at)!,
        requestHeaders: a.request_headers,
        statusCode: a.status_code,
        latenciaMs: a.latency_ms,
        respuesta: a.reply_body,
        error: a.error,
      })),
  }));
}

/** GET /webhooks/deliveries: the caller's own deliveries, newest first, filtered by offer and state. */
export async function receiverDeliveries(
  em: EntityManager,
  receiverId: number,
  q: { uuid?: string; estado?: string; page: number },
): Promise<{ page: number; pageSize: number; total: number; deliveries: DeliveryView[] }> {
  const offset = offsetOfPage(q.page, PAGE_SIZE); // LIM-6: a page too deep is refused before any query
  const { rows, total } = await receiverDeliveryPage(em, receiverId, q, PAGE_SIZE, offset);
  return { page: q.page, pageSize: PAGE_SIZE, total, deliveries: await withAttempts(em, rows, tenantActor) };
}

/** Every delivery of an offer (the operator's timeline), in the order they were planned. */
export async function offerDeliveries(em: EntityManager, offerUuid: string): Promise<DeliveryView[]> {
  return withAttempts(em, await offerDeliveryRows(em, offerUuid));
}

export interface ReceiverHealth {
  url: string;
  intentos: number;
  fallidos: number;
  tasaFallo: number;
  ultimoEstado: number | null;
  ultimoIntento: string;
}

/** Per endpoint URL: attempts in the last `sinceMinutes`, how many failed (no 2xx), the last status. */
export async function receiverHealth(em: EntityManager, sinceMinutes = 60): Promise<ReceiverHealth[]> {
  const rows = await attemptHealthRows(em, sinceMinutes);
  return rows.map((r) => ({
    url: r.url,
    intentos: Number(r.n),
    fallidos: Number(r.failed),
    tasaFallo: Math.round((Number(r.failed) / Number(r.n)) * 1000) / 1000,
    ultimoEstado: r.last_status,
    ultimoIntento: iso(r.last_at)!,
  }));
}

/**
 * The retention job (D18: at least 30 days): deletes attempts older than
 * `days`, then finished deliveries older than that, in batches (bounded
 * statements, no long lock). Returns how many rows went.
 */
export async function pruneDeliveries(em: EntityManager, days: number, batch = 5000): Promise<{ attempts: number; deliveries: number }> {
  let attempts = 0;
  let deliveries = 0;
  for (;;) {
    const n = await pruneAttemptBatch(em, days, batch);
    attempts += n;
    if (n < batch) break;
  }
  for (;;) {
    const n = await pruneFinishedDeliveryBatch(em, days, batch);
    deliveries += n;
    if (n < batch) break;
  }
  return { attempts, deliveries };
}
