/**
 * Writing the PostGIS columns: a central's coverage areas (one row per
 * service type) and a technician's position. Used by provisioning, the
 * position endpoint and the tests.
 */
import type { EntityManager, QueryResult } from '@mikro-orm/postgresql';

export type Coverage =
  | { type: 'Polygon' | 'MultiPolygon'; coordinates: unknown[] }
  | { center: { lat: number; lng: number }; radiusKm: number };

/** A coverage PostGIS cannot read or that is not a valid area (self-intersecting, unclosed ring...). */
export class CoverageError extends Error {
  constructor(readonly reason: string) {
    super(`invalid coverage: ${reason}`);
    this.name = 'CoverageError';
  }
}

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

/**
 * Checks that the coverage is a valid, non-empty area; throws CoverageError
 * (with PostGIS's reason) otherwise; a caller's transaction survives it.
 */
export async function checkCoverage(em: EntityManager, coverage: Coverage): Promise<void> {
  if ('center' in coverage && !(coverage.radiusKm > 0)) throw new CoverageError('the radius must be greater than 0');
  const { sql, params } = coverageSql(coverage);
  type Check = { valid: boolean; reason: string; kind: string; empty: boolean };
  let row: Check | undefined;
  try {
    // In its own (sub)transaction: inside a caller's transaction a PostGIS error rolls back to a savepoint only.
    [row] = await em.transactional((tem) =>
      tem.getConnection().execute<Check[]>(
        `select st_isvalid(g) as valid, st_isvalidreason(g) as reason, geometrytype(g) as kind, st_isempty(g) as empty
           from (select ${sql} as g) c`,
        params,
        'all',
        tem.getTransactionContext(),
      ),
    );
  } catch (err) {
    throw new CoverageError((err as Error).message);
  }
  if (!row || row.kind !== 'MULTIPOLYGON' || row.empty) throw new CoverageError('not a polygon or multipolygon with an area');
  if (!row.valid) throw new CoverageError(row.reason);
}

/**
 * Replaces the central's coverage with one area per service type (validated
 * first: see checkCoverage). Areas are geometries in WGS 84 (lon, lat) whose
 * edges are straight lines in degrees, as GeoJSON describes them; a point on
 * an edge is covered. An area equal to the stored one is not rewritten; says
 * whether any row changed.
 */
export async function setCoverage(
  em: EntityManager,
  centralId: number,
  serviceTypeIds: number[],
  coverage: Coverage,
): Promise<boolean> {
  await checkCoverage(em, coverage);
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
