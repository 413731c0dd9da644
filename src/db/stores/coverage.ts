/**
 * The `central_area` table: a central's coverage, one area per service type,
 * as a MultiPolygon in WGS 84 (lon, lat) whose edges are straight lines in
 * degrees, as GeoJSON describes them. (Who a point's coverage reaches is read
 * with the technicians: findCandidates in ./technicians.ts.)
 */
import type { EntityManager, QueryResult } from '@mikro-orm/postgresql';

export type Coverage =
  | { type: 'Polygon' | 'MultiPolygon'; coordinates: unknown[] }
  | { center: { lat: number; lng: number }; radiusKm: number };

/** The coverage as a MultiPolygon geometry SQL expression and its parameters. */
function coverageSql(coverage: Coverage): { sql: string; params: unknown[] } {
  if ('center' in coverage) {
    // A geodesic buffer (geography) around the center, 64 segments per quarter circle
    // (the polygon departs from the true circle by under 0.01 % of the radius).
    return {
      sql: `st_multi(st_buffer(st_setsrid(st_makepoint(?, ?), 4326)::geography, ? * 1000, 64)::geometry)`,
      params: [coverage.center.lng, coverage.center.lat, coverage.radiusKm],
    };
  }
  return {
    sql: `st_multi(st_setsrid(st_geomfromgeojson(?), 4326))`,
    params: [JSON.stringify({ type: coverage.type, coordinates: coverage.coordinates })],
  };
}

/** What PostGIS says of a coverage's geometry. */
export interface CoverageCheck {
  valid: boolean;
  reason: string;
  kind: string;
  empty: boolean;
}

/**
 * PostGIS's verdict on the coverage's geometry. In its own (sub)transaction:
 * inside a caller's transaction a PostGIS error (a geometry it cannot read)
 * rolls back to a savepoint only; the error is thrown.
 */
export async function inspectCoverage(em: EntityManager, coverage: Coverage): Promise<CoverageCheck | undefined> {
  const { sql, params } = coverageSql(coverage);
  const [row] = await em.transactional((tem) =>
    tem.getConnection().execute<CoverageCheck[]>(
      `select st_isvalid(g) as valid, st_isvalidreason(g) as reason, geometrytype(g) as kind, st_isempty(g) as empty
         from (select ${sql} as g) c`,
      params,
      'all',
      tem.getTransactionContext(),
    ),
  );
  return row;
}

/**
 * Replaces the central's areas with one per service type (an area equal to
 * the stored one is not rewritten), in the caller's transaction; says whether
 * any row changed. The coverage is checked first by the caller.
 */
export async function replaceAreas(em: EntityManager, centralId: number, serviceTypeIds: number[], coverage: Coverage): Promise<boolean> {
  const conn = em.getConnection();
  const tx = em.getTransactionContext();
  const deleted = await conn.execute<QueryResult>(
    `delete from central_area where central_id = ? and not (service_type_id = any(?::int[]))`,
    [centralId, `{${serviceTypeIds.join(',')}}`],
    'run',
    tx,
  );
  if (!serviceTypeIds.length) return deleted.affectedRows > 0;
  const { sql, params } = coverageSql(coverage);
  const written = await conn.execute<QueryResult>(
    `insert into central_area (central_id, service_type_id, area)
     select ?, t.id, c.g from unnest(?::int[]) as t(id), (select ${sql} as g) c
     on conflict (central_id, service_type_id) do update set area = excluded.area
     where not st_equals(central_area.area, excluded.area)`,
    [centralId, `{${serviceTypeIds.join(',')}}`, ...params],
    'run',
    tx,
  );
  return deleted.affectedRows > 0 || written.affectedRows > 0;
}
