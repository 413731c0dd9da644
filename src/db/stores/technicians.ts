/**
 * Statements on `technician`: its hold by a service (D16), its position, its
 * rate, who a central's key speaks for, and "who gets this offer" (D8).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { prepared, sql, sql as driverSql, type Prepared } from '../sql.js';
import { Technician } from '../entities/index.js';

// --- moves ---

/** D16: the technician is busy with this service from ASIGNADA on. */
export async function holdTechnicianForOffer(em: EntityManager, offerUuid: string, technicianId: number): Promise<void> {
  await em.execute(`update technician set busy_offer_uuid = ? where id = ?`, [offerUuid, technicianId]);
}

/** D16: the service ended; its technician is free again, unless a newer assignment holds it. */
export async function releaseTechnicianOfOffer(em: EntityManager, offerUuid: string): Promise<void> {
  await em.execute(`update technician set busy_offer_uuid = null where busy_offer_uuid = ?`, [offerUuid]);
}

/** D16, set-based: each offer's technician busy with it (one statement for a batch). */
export async function holdTechniciansForOffers(em: EntityManager, holds: ReadonlyArray<{ offerUuid: string; technicianId: number }>): Promise<void> {
  if (holds.length === 1) return holdTechnicianForOffer(em, holds[0].offerUuid, holds[0].technicianId);
  await sql(
    em,
    `update technician t set busy_offer_uuid = h.offer_uuid
       from jsonb_to_recordset($1::jsonb) as h(offer_uuid uuid, technician_id int) where t.id = h.technician_id`,
    [JSON.stringify(holds.map((h) => ({ offer_uuid: h.offerUuid, technician_id: h.technicianId })))],
  );
}

/** D16, set-based: the technicians of these ended services freed (one statement for a batch). */
export async function releaseTechniciansOfOffers(em: EntityManager, offerUuids: readonly string[]): Promise<void> {
  if (offerUuids.length === 1) return releaseTechnicianOfOffer(em, offerUuids[0]);
  await sql(em, `update technician set busy_offer_uuid = null where busy_offer_uuid = any($1::uuid[])`, [offerUuids]);
}

// --- stores ---

/** Technicians by id, as entities (an unknown id is left out). */
export async function loadTechnicians(em: EntityManager, ids: readonly number[]): Promise<Technician[]> {
  return em.find(Technician, { id: { $in: [...ids] } });
}

/** The technician with document `dni` of a central that API user `apiUserId` owns, as an entity (null: none). */
export async function loadTechnicianOfApiUser(em: EntityManager, dni: string | undefined, apiUserId: number): Promise<Technician | null> {
  return em.findOne(Technician, { dni, central: { apiUser: apiUserId } });
}

/**
 * Sets a technician's position (and its time); null clears it. `available`,
 * when given, is written in the same statement.
 */
export async function setTechnicianPosition(
  em: EntityManager,
  technicianId: number,
  position: { lat: number; lng: number } | null,
  at: Date = new Date(),
  available?: boolean,
): Promise<void> {
  const setAvailable = available === undefined ? '' : ', available = ?';
  const extra = available === undefined ? [] : [available];
  await em.getConnection().execute(
    position
      ? `update technician set lat = ?, lng = ?, position = st_setsrid(st_makepoint(?, ?), 4326)::geography, position_at = ?${setAvailable} where id = ?`
      : `update technician set lat = null, lng = null, position = null, position_at = null${setAvailable} where id = ?`,
    position
      ? [position.lat, position.lng, position.lng, position.lat, at, ...extra, technicianId]
      : [...extra, technicianId],
    'run',
    em.getTransactionContext(),
  );
}

/**
 * The technician with document `dni` of a central that API user `apiUserId`
 * owns, with its central's NIT; null for an unknown document or another
 * central's technician (a central never speaks for another one, D4). One
 * indexed join: reconnect storms make it the socket upgrade's hot path.
 */
export async function technicianOfApiUser(
  em: EntityManager,
  dni: string,
  apiUserId: number,
): Promise<{ id: number; dni: string; nit: string; status: 'ACTIVO' | 'INACTIVO' } | null> {
  const [tech] = await em.execute<Array<{ id: number; dni: string; nit: string; status: 'ACTIVO' | 'INACTIVO' }>>(
    'select t.id, t.dni, c.nit, t.status from technician t join central c on c.id = t.central_id where t.dni = ? and c.api_user_id = ?',
    [dni, apiUserId],
  );
  return tech ?? null;
}

/** Which of these technicians still belong to a central of API user `apiUserId` (the key sockets' re-check, D24): one statement. */
export async function techniciansOfApiUser(em: EntityManager, technicianIds: readonly number[], apiUserId: number): Promise<Set<number>> {
  if (!technicianIds.length) return new Set();
  const rows = await sql<{ id: number }>(
    em,
    'select t.id from technician t join central c on c.id = t.central_id where t.id = any($1::int[]) and c.api_user_id = $2',
    [[...technicianIds], apiUserId],
  );
  return new Set(rows.map((r) => Number(r.id)));
}

/**
 * Sets the technician's `rate` (which D2 ranks by) to the plain average of
 * its initial rate, counted once, and every survey of its services (D14):
 * one statement, so two surveys at once cannot lose one.
 */
export async function rateFromSurveys(em: EntityManager, technicianId: number): Promise<void> {
  await em.execute(
    `update technician t
        set initial_rate = coalesce(t.initial_rate, t.rate),
            rate = (coalesce(t.initial_rate, t.rate) + s.total) / (1 + s.n)
       from (select coalesce(sum(rating), 0)::float8 as total, count(*) as n from service_survey where technician_id = ?) s
      where t.id = ?`,
    [technicianId, technicianId],
  );
}

// "Who gets this offer" (D8) as one indexed query: the centrals whose
// coverage for the service type contains the point (GiST on central_area.area),
// and their available technicians of that type, not busy with a service (D16),
// with a fresh position within the radius, nearest first, at most `cap` (a KNN
// walk of the GiST index over the positions of available technicians, which
// stops at the cap). src/domain/distribution/candidates.ts reads the rows.

export interface CandidateQuery {
  lat: number;
  lng: number;
  serviceTypeId: number;
  radiusKm: number;
  /** positions older than this do not count; 0: any age */
  maxAgeS: number;
  cap: number;
}

/** A row of the candidates query: a covering central (no technician), or one of its technicians and its distance (m). */
export interface CandidateRow {
  central_id: number;
  technician_id: number | null;
  technician_dni: string | null;
  distance_m: number | null;
}

const POINT = `st_setsrid(st_makepoint(?::float8, ?::float8), 4326)`;

/**
 * PostGIS estimates "polygons containing a point" at about one row and
 * ST_DWithin on geography at a tiny share of the table, so the planner would
 * prefer a bitmap scan per covering central and a sort over the KNN walk,
 * which is far slower with many technicians (bench/geo-query.ts). For this
 * statement only, sorting is priced out (the KNN order is the only cheap
 * one) and JIT is off (that price would otherwise trigger it).
 */
const PLAN_SETTINGS = `set local enable_sort = off; set local jit = off`;

/** The SQL and its parameters (the plan test and the benchmark explain it). */
export function candidatesSql(q: CandidateQuery): { sql: string; params: unknown[] } {
  const pt = [q.lng, q.lat];
  const sql = `
    with covering as materialized (
      select distinct a.central_id
        from central_area a
       where a.service_type_id = ?
         and st_intersects(a.area, ${POINT})
    ),
    nearby as (
      select t.id, t.dni, t.central_id, st_distance(t.position, ${POINT}::geography) as distance_m
        from technician t
       where t.available
         and t.status = 'ACTIVO'
         and t.busy_offer_uuid is null
         and t.central_id = any(array(select central_id from covering))
         and (?::int = 0 or t.position_at >= now() - make_interval(secs => ?::int))
         and (t.service_types @> ?::jsonb or t.service_types = '[]'::jsonb)
         and st_dwithin(t.position, ${POINT}::geography, ?::float8)
       order by t.position <-> ${POINT}::geography
       limit ?::int
    )
    select * from (
      select c.central_id, null::int as technician_id, null::text as technician_dni, null::float8 as distance_m
        from covering c
      union all
      select n.central_id, n.id, n.dni, n.distance_m from nearby n
    ) r
    order by r.technician_id is not null, r.distance_m, r.central_id`;
  const params = [
    q.serviceTypeId,
    ...pt,
    ...pt,
    q.maxAgeS,
    q.maxAgeS,
    JSON.stringify([q.serviceTypeId]),
    ...pt,
    q.radiusKm * 1000,
    ...pt,
    q.cap,
  ];
  return { sql, params };
}

/**
 * Runs `fn` after the candidates query's plan settings, in the caller's transaction (until it ends) or else in one
 * of its own. `set local` ends with the transaction: no reset statement (the distribution's statements after this
 * one, in the same transaction, sort nothing; issue 12 counts them).
 */
async function inPlanSettings<R>(em: EntityManager, fn: (tem: EntityManager) => Promise<R>): Promise<R> {
  const run = async (tem: EntityManager) => {
    // no parameters: the simple protocol, which takes both statements
    await driverSql(tem, PLAN_SETTINGS);
    return fn(tem);
  };
  return em.getTransactionContext() ? run(em) : em.transactional(run);
}

/** Runs `sql` (with `?` parameters, through the ORM's connection) with the plan settings. */
function withPlanSettings<R extends object>(em: EntityManager, sql: string, params: unknown[]): Promise<R[]> {
  return inPlanSettings(em, (tem) => tem.getConnection().execute<R[]>(sql, params, 'all', tem.getTransactionContext()));
}

/** The candidates query's rows: the covering centrals first, then their technicians, nearest first. */
export async function candidateRows(em: EntityManager, q: CandidateQuery): Promise<CandidateRow[]> {
  const { sql, params } = candidatesSql(q);
  return withPlanSettings<CandidateRow>(em, sql, params);
}

/** One offer of a batch: its key (the offer's uuid) and its query. */
export interface KeyedCandidateQuery extends CandidateQuery {
  key: string;
}

const MANY_POINT = `st_setsrid(st_makepoint(o.lng, o.lat), 4326)`;

/**
 * The batch form's statement: its one parameter is the offers' JSON, so its plan does not depend on the values and
 * it is prepared once per connection (src/db/sql.ts), run through the driver.
 */
const CANDIDATES_MANY = prepared(`
    with o as materialized (
      select * from jsonb_to_recordset($1::jsonb)
        as o(k text, lng float8, lat float8, service_type_id int, radius_m float8, max_age_s int, cap int)
    ),
    covering as materialized (
      select distinct o.k, a.central_id
        from o join central_area a on a.service_type_id = o.service_type_id and st_intersects(a.area, ${MANY_POINT})
    ),
    nearby as (
      select o.k, n.*
        from o cross join lateral (
          select t.id, t.dni, t.central_id, st_distance(t.position, ${MANY_POINT}::geography) as distance_m
            from technician t
           where t.available
         and t.status = 'ACTIVO'
             and t.busy_offer_uuid is null
             and t.central_id = any(array(select c.central_id from covering c where c.k = o.k))
             and (o.max_age_s = 0 or t.position_at >= now() - make_interval(secs => o.max_age_s))
             and (t.service_types @> jsonb_build_array(o.service_type_id) or t.service_types = '[]'::jsonb)
             and st_dwithin(t.position, ${MANY_POINT}::geography, o.radius_m)
           order by t.position <-> ${MANY_POINT}::geography
           limit o.cap
        ) n
    )
    select * from (
      select c.k, c.central_id, null::int as technician_id, null::text as technician_dni, null::float8 as distance_m
        from covering c
      union all
      select n.k, n.central_id, n.id, n.dni, n.distance_m from nearby n
    ) r
    order by r.k, r.technician_id is not null, r.distance_m, r.central_id`);

/**
 * The candidates of several offers in one statement (a distribution batch):
 * the same query as candidatesSql for each offer, as a LATERAL over the
 * offers' record set, so each keeps its own coverage, radius, KNN walk and cap.
 */
export function candidatesManySql(qs: readonly KeyedCandidateQuery[]): { statement: Prepared; params: unknown[] } {
  const rows = qs.map((q) => ({ k: q.key, lng: q.lng, lat: q.lat, service_type_id: q.serviceTypeId, radius_m: q.radiusKm * 1000, max_age_s: q.maxAgeS, cap: q.cap }));
  return { statement: CANDIDATES_MANY, params: [JSON.stringify(rows)] };
}

/** The batch form's rows, each with its offer's key (`k`), in one statement. */
export async function candidateRowsMany(em: EntityManager, qs: readonly KeyedCandidateQuery[]): Promise<Array<CandidateRow & { k: string }>> {
  const { statement, params } = candidatesManySql(qs);
  return inPlanSettings(em, (tem) => driverSql<CandidateRow & { k: string }>(tem, statement, params));
}

/** EXPLAIN of the candidates query as candidateRows runs it: `(format json)` options, e.g. 'analyze, format json'. */
export async function explainCandidates(em: EntityManager, q: CandidateQuery, options = 'format json'): Promise<Array<{ 'QUERY PLAN': unknown }>> {
  const { sql, params } = candidatesSql(q);
  return withPlanSettings<{ 'QUERY PLAN': unknown }>(em, `explain (${options}) ${sql}`, params);
}

/** EXPLAIN of the batch form, as candidateRowsMany runs it. */
export async function explainCandidatesMany(em: EntityManager, qs: readonly KeyedCandidateQuery[], options = 'format json'): Promise<Array<{ 'QUERY PLAN': unknown }>> {
  const { statement, params } = candidatesManySql(qs);
  return inPlanSettings(em, (tem) => driverSql<{ 'QUERY PLAN': unknown }>(tem, `explain (${options}) ${statement.text}`, params));
}

/** A technician on the operators' live map (D23). */
export interface MapTechnicianRow {
  id: number;
  names: string;
  identifier: string | null;
  central: string;
  lat: number;
  lng: number;
  positionAt: string;
  available: boolean;
  busyOfferUuid: string | null;
}

const MAP_TECHNICIANS = prepared(`
  select t.id, t.names, t.identifier, c.name as central, t.lat, t.lng, t.position_at as "positionAt", t.available,
         t.busy_offer_uuid as "busyOfferUuid"
    from technician t join central c on c.id = t.central_id
   where t.status = 'ACTIVO' and t.lat is not null and t.position_at >= $1
   order by t.position_at desc
   limit $2`);

/** The active technicians with a position reported since `since`, freshest first, at most `limit` (one statement). */
export async function techniciansForMap(em: EntityManager, since: Date, limit: number): Promise<MapTechnicianRow[]> {
  return sql<MapTechnicianRow>(em, MAP_TECHNICIANS, [since.toISOString(), limit]);
}
