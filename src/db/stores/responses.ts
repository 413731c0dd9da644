/**
 * Statements on `offer_response`: a central's answer to an offer (D4), with
 * its figures, the reads of a batch of closing windows (D2), and of an
 * offer's timeline.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiUser } from '../entities/index.js';
import { prepared, readDate, sql } from '../sql.js';

/** A response with what the ranking, the 6.1 body, the live event and the novelties need. */
export interface ClosingResponseRow {
  id: number;
  offerUuid: string;
  distanceKm: number;
  timeMin: number;
  timeGiven: boolean;
  rate: number;
  techLat: number | null;
  techLng: number | null;
  updatedAt: Date;
  central: {
    id: number;
    nit: string;
    name: string;
    phone: string | null;
    apiUser: Pick<ApiUser, 'id' | 'urlApi' | 'apiEndpoint'> | null;
  };
  technician: { id: number; dni: string; identifier: string | null; phone: string | null; names: string };
}

/** The windows' responses with their centrals and technicians. */
const CLOSING_RESPONSES = prepared(`select r.id, r.offer_uuid as "offerUuid", r.distance_km as "distanceKm", r.time_min as "timeMin", r.time_given as "timeGiven",
            r.rate, r.tech_lat as "techLat", r.tech_lng as "techLng", r.updated_at as "updatedAt",
            json_build_object('id', c.id, 'nit', c.nit, 'name', c.name, 'phone', c.phone,
              'apiUser', case when u.id is null then null
                              else json_build_object('id', u.id, 'urlApi', u.url_api, 'apiEndpoint', u.api_endpoint) end) as central,
            json_build_object('id', t.id, 'dni', t.dni, 'identifier', t.identifier, 'phone', t.phone, 'names', t.names) as technician
       from offer_response r
       join central c on c.id = r.central_id
       left join api_user u on u.id = c.api_user_id
       join technician t on t.id = r.technician_id
      where r.offer_uuid = any($1::uuid[])`);

/** Every response of these offers (one statement), by offer, in the order read. */
export async function closingResponsesOf(em: EntityManager, offerUuids: readonly string[]): Promise<Map<string, ClosingResponseRow[]>> {
  const rows = await sql<ClosingResponseRow>(em, CLOSING_RESPONSES, [offerUuids]);
  const byOffer = new Map<string, ClosingResponseRow[]>();
  for (const r of rows) {
    r.updatedAt = readDate(em, r.updatedAt);
    const list = byOffer.get(r.offerUuid) ?? [];
    list.push(r);
    byOffer.set(r.offerUuid, list);
  }
  return byOffer;
}

/** What PUT /aceptacion's quick path reads (FACTS): every party of D4.2–6 and D2's figures, null when missing. */
export interface AcceptanceFactsRow {
  central_id: number | null;
  central_nit: string | null;
  offer_state: string | null;
  generator_id: number | null;
  generator_nit: string | null;
  url_api: string | null;
  api_endpoint: ApiUser['apiEndpoint'] | null;
  technician_id: number | null;
  technician_names: string | null;
  technician_rate: number | null;
  /** D16: the service holding the technician, if any */
  technician_busy: string | null;
  /** D20: whether the offer was distributed to the central */
  recipient: boolean;
  distance_m: number | null;
  lat: number | null;
  lng: number | null;
}

/**
 * Everything D4.2–6 and D2's figures need, in one statement: the caller's central, the offer, its generator's
 * endpoint, the technician, the service holding it, whether the offer reached the central (D20, its offer_recipient
 * row) and the technician's distance to the origin (the given point, else its last position).
 */
const ACCEPTANCE_FACTS = prepared(`
  select c.id as central_id, c.nit as central_nit, o.state as offer_state, o.generator_id, g.nit as generator_nit,
         g.url_api, g.api_endpoint, t.id as technician_id, t.names as technician_names, t.rate as technician_rate,
         t.busy_offer_uuid::text as technician_busy,
         exists (select 1 from offer_recipient r where r.offer_uuid = o.uuid and r.central_id = c.id) as recipient,
         st_distance(o.origin, p.pt) as distance_m, st_y(p.pt::geometry) as lat, st_x(p.pt::geometry) as lng
    from (select 1) one
    left join central c on c.nit = $1 and c.api_user_id = $2
    left join offer o on o.uuid = $3
    left join api_user g on g.id = o.generator_id
    left join technician t on t.dni = $4 and t.central_id = c.id
    left join lateral (
      select case when $5::boolean then st_setsrid(st_makepoint($6::float8, $7::float8), 4326)::geography else t.position end as pt
    ) p on true`);

export async function readAcceptanceFacts(
  em: EntityManager,
  q: { nit: string; callerId: number; offerUuid: string; dni: string; point: { lat: number; lng: number } | null },
): Promise<AcceptanceFactsRow> {
  const [f] = await sql<AcceptanceFactsRow>(em, ACCEPTANCE_FACTS, [
    q.nit,
    q.callerId,
    q.offerUuid,
    q.dni,
    q.point !== null,
    q.point?.lng ?? 0,
    q.point?.lat ?? 0,
  ]);
  return f;
}

/**
 * The response of an offer still ABIERTA, in one statement: the offer locked FOR UPDATE (so it serialises with the
 * evaluation, which locks it before reading the responses), the response upserted only when the state is ABIERTA
 * (a central answering twice replaces its own), and the state seen under the lock.
 */
const RECORD_OPEN_RESPONSE = prepared(`
  with o as (select uuid, state from offer where uuid = $1 for update),
  up as (
    insert into offer_response (offer_uuid, central_id, technician_id, distance_km, time_min, time_given, rate, tech_lat, tech_lng, created_at, updated_at)
    select o.uuid, $2::int, $3::int, $4::float8, $5::float8, $6::boolean, $7::float8, $8::float8, $9::float8, now(), now()
      from o where o.state = 'ABIERTA'
    on conflict (offer_uuid, central_id) do update
       set technician_id = excluded.technician_id, distance_km = excluded.distance_km, time_min = excluded.time_min,
           time_given = excluded.time_given, rate = excluded.rate, tech_lat = excluded.tech_lat, tech_lng = excluded.tech_lng,
           updated_at = now()
    returning id
  )
  select o.state, (select id from up) as response_id from o`);

export interface OpenResponse {
  offerUuid: string;
  centralId: number;
  technicianId: number;
  distanceKm: number;
  timeMin: number;
  timeGiven: boolean;
  rate: number | null;
  techLat: number | null;
  techLng: number | null;
}

/** Records the response when the offer is ABIERTA under its lock; the state seen and the response's id (null: not recorded). */
export async function recordOpenResponse(em: EntityManager, r: OpenResponse): Promise<{ state: string; response_id: number | null }> {
  const [row] = await sql<{ state: string; response_id: number | null }>(em, RECORD_OPEN_RESPONSE, [
    r.offerUuid,
    r.centralId,
    r.technicianId,
    r.distanceKm,
    r.timeMin,
    r.timeGiven,
    r.rate,
    r.techLat,
    r.techLng,
  ]);
  return row;
}

// --- stores ---

/** A response as an offer's timeline ranks it. */
export interface RankedResponseRow {
  id: number;
  central: string;
  technician: string;
  time_min: number;
  time_given: boolean;
  rate: number;
  distance_km: number;
  updated_at: Date;
}

/** An offer's responses with their central's and technician's names (the operators' timeline). */
export async function responsesForTimeline(em: EntityManager, offerUuid: string): Promise<RankedResponseRow[]> {
  return em.execute<RankedResponseRow[]>(
    `select r.id, c.name as central, t.names as technician, r.time_min, r.time_given, r.rate, r.distance_km, r.updated_at
       from offer_response r join central c on c.id = r.central_id join technician t on t.id = r.technician_id
      where r.offer_uuid = ?`,
    [offerUuid],
  );
}

/** A response's arrival promise: its minutes, when they were given, and where the technician was then (null: no such response). */
export async function arrivalPromise(
  em: EntityManager,
  responseId: number,
): Promise<{ timeMin: number; givenAt: Date; lat: number | null; lng: number | null } | null> {
  const [r] = await em.execute<Array<{ time_min: number; updated_at: Date; tech_lat: number | null; tech_lng: number | null }>>(
    `select time_min, updated_at, tech_lat, tech_lng from offer_response where id = ?`,
    [responseId],
  );
  return r ? { timeMin: Number(r.time_min), givenAt: new Date(r.updated_at), lat: r.tech_lat == null ? null : Number(r.tech_lat), lng: r.tech_lng == null ? null : Number(r.tech_lng) } : null;
}
