/**
 * What was written about one offer (its row, its audit rows, its planned
 * deliveries), with its own ids and times replaced by their roles, so that two
 * identical offers moved by two forms of the same move compare equal
 * (test/offers/closingForms.test.ts, expiryForms.test.ts).
 */
import { expect } from 'chai';
import type { TestApp } from './harness.js';

type Row = Record<string, unknown>;

export async function writtenAbout(app: TestApp, uuid: string): Promise<Row> {
  const sql = <T = Row>(q: string, params: unknown[] = []) => app.rt.orm.em.fork().getConnection().execute<T[]>(q, params);
  const responses = await sql<{ id: number; central_id: number; updated_at: string }>(
    `select id, central_id, updated_at from offer_response where offer_uuid = ?`,
    [uuid],
  );
  const deliveries = await sql<{ id: string; kind: string; event_id: string }>(
    `select id, kind, event_id from webhook_delivery where offer_uuid = ? order by seq`,
    [uuid],
  );
  const roles = new Map<string, string>([[uuid, 'OFFER']]);
  for (const r of responses) {
    roles.set(String(r.id), `response of central ${r.central_id}`);
    roles.set(new Date(r.updated_at).toISOString(), `response time of central ${r.central_id}`);
  }
  for (const d of deliveries) {
    roles.set(d.id, `${d.kind} delivery`);
    if (d.event_id !== `acceptance-${uuid}`) roles.set(d.event_id, `${d.kind} event id`);
  }
  // response ids are numbers like central ids: named only where a response id goes
  const RESPONSE_KEYS = ['accepted_response', 'responseId'];
  const name = (v: unknown, key = ''): unknown => {
    if (Array.isArray(v)) return v.map((x) => name(x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, name(x, k)]));
    if (typeof v === 'string') return roles.get(v) ?? v.replaceAll(uuid, 'OFFER');
    if (typeof v === 'number' && RESPONSE_KEYS.includes(key)) return roles.get(String(v)) ?? v;
    return v;
  };
  const [offer] = await sql(
    `select state, assigned_central_id, assigned_technician_id, accepted_response, ranking, codigo_servicio, updated_at > created_at as touched
       from offer where uuid = ?`,
    [uuid],
  );
  const transitions = await sql(
    `select from_state, to_state, actor, tech_lat, tech_lng, detail from offer_transition where offer_uuid = ? order by id`,
    [uuid],
  );
  const rows = await sql<Row & { request_body: Row }>(
    `select kind, event_id, url, method, request_headers, request_body, receiver_id, state, attempts, sent_at, completed_at
       from webhook_delivery where offer_uuid = ? order by seq`,
    [uuid],
  );
  for (const d of rows) {
    expect(Date.parse(String(d.request_body.fecha ?? new Date().toISOString())), 'fecha is an ISO time').to.not.be.NaN;
    delete d.request_body.fecha;
  }
  return name({ offer, transitions, deliveries: rows }) as Row;
}
