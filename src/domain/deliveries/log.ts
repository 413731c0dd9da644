/**
 * The delivery log (D18), read set-based: a page of deliveries and all their
 * attempts in two statements, whatever the page size. A generator reads only
 * the deliveries addressed to it (GET /webhooks/deliveries); operators read an
 * offer's deliveries on its timeline and every receiver's recent health.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

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

interface DeliveryRow {
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

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

async function withAttempts(em: EntityManager, rows: DeliveryRow[]): Promise<DeliveryView[]> {
  const attempts = rows.length
    ? await em.execute<Array<{ delivery_id: string; attempt: number; actor: string; at: Date; request_headers: Record<string, string>; status_code: number | null; latency_ms: number | null; reply_body: string | null; error: string | null }>>(
        `select * from webhook_attempt where delivery_id in (?) order by id`,
        [rows.map((r) => r.id)],
      )
    : [];
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
        actor: a.actor,
        fecha: iso(a.at)!,
        requestHeaders: a.request_headers,
        statusCode: a.status_code,
        latenciaMs: a.latency_ms,
        respuesta: a.reply_body,
        error: a.error,
      })),
  }));
}

const COLUMNS = `id, event_id, offer_uuid, kind, url, state, attempts, request_body, created_at, completed_at, status_code, latency_ms`;

/** GET /webhooks/deliveries: the caller's own deliveries, newest first, filtered by offer and state. */
export async function receiverDeliveries(
  em: EntityManager,
  receiverId: number,
  q: { uuid?: string; estado?: string; page: number },
): Promise<{ page: number; pageSize: number; total: number; deliveries: DeliveryView[] }> {
  const where = `receiver_id = ? and (?::uuid is null or offer_uuid = ?::uuid) and (?::text is null or state = ?::text)`;
  const params = [receiverId, q.uuid ?? null, q.uuid ?? null, q.estado ?? null, q.estado ?? null];
  const [rows, [{ n }]] = await Promise.all([
    em.execute<DeliveryRow[]>(`select ${COLUMNS} from webhook_delivery where ${where} order by created_at desc, id limit ? offset ?`, [
      ...params,
      PAGE_SIZE,
      (q.page - 1) * PAGE_SIZE,
    ]),
    em.execute<Array<{ n: string }>>(`select count(*) as n from webhook_delivery where ${where}`, params),
  ]);
  return { page: q.page, pageSize: PAGE_SIZE, total: Number(n), deliveries: await withAttempts(em, rows) };
}

/** Every delivery of an offer (the operator's timeline), in the order they were planned. */
export async function offerDeliveries(em: EntityManager, offerUuid: string): Promise<DeliveryView[]> {
  return withAttempts(em, await em.execute<DeliveryRow[]>(`select ${COLUMNS} from webhook_delivery where offer_uuid = ? order by seq`, [offerUuid]));
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
  const rows = await em.execute<Array<{ url: string; n: string; failed: string; last_status: number | null; last_at: Date }>>(
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
    const res = await em.execute<Array<{ id: string }>>(
      `delete from webhook_attempt where id in (select id from webhook_attempt where at < now() - make_interval(days => ?) limit ?) returning id`,
      [days, batch],
    );
    attempts += res.length;
    if (res.length < batch) break;
  }
  for (;;) {
    const res = await em.execute<Array<{ id: string }>>(
      `delete from webhook_delivery where id in (
         select id from webhook_delivery where created_at < now() - make_interval(days => ?) and state in ('ok', 'failed') limit ?)
       returning id`,
      [days, batch],
    );
    deliveries += res.length;
    if (res.length < batch) break;
  }
  return { attempts, deliveries };
}
