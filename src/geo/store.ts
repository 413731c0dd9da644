/**
 * Writing the PostGIS columns: a central's coverage areas (one row per
 * service type) and a technician's position. Used by provisioning, the
 * position endpoint and the tests.
 */
import type { EntityManager, QueryResult } from '@mikro-orm/postgresql';

export type Coverage =
  | { type: 'Polygon' | 'MultiPolygon'; coordinates: unknown[] }
  | { center: { lat: number; lng: number }; radiusKm: number };

/** The coverage as a MultiPolygon geometry SQL expression and its parameters. */
function coverageSql(coverage: Coverage): { sql: string; params: unknown[] } {
  if ('center' in coverage) {
    // A geodesic buffer (geography) around the center, 64 segments per quarter circle.
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
 * Replaces the central's coverage with one area per service type; an area
 * equal to the stored one is not rewritten. Says whether any row changed.
 */
export async function setCoverage(
  em: EntityManager,
  centralId: number,
  serviceTypeIds: number[],
  coverage: Coverage,
): Promise<boolean> {
  const conn = em.getConnection();
  const tx = em.getTransactionContext();
  const deleted = await conn.execute<QueryResult>(
    `delete from central_area where central_id = ? and not (service_type_id = any(?::int[]))`,
    [centralId, `{${serviceTypeIds.join(',')}}`],
    'run',
    tx,
  );
  const { sql, params } = coverageSql(coverage);
  let changed = deleted.affectedRows > 0;
  for (const typeId of serviceTypeIds) {
    const written = await conn.execute<QueryResult>(
      `insert into central_area (central_id, service_type_id, area) values (?, ?, ${sql})
       on conflict (central_id, service_type_id) do update set area = excluded.area
       where not st_equals(central_area.area, excluded.area)`,
      [centralId, typeId, ...params],
      'run',
      tx,
    );
    changed ||= written.affectedRows > 0;
  }
  return changed;
}

/** Sets a technician's position (and its time); null clears it. */
export async function setTechnicianPosition(
  em: EntityManager,
  technicianId: number,
  position: { lat: number; lng: number } | null,
  at: Date = new Date(),
): Promise<void> {
  await em.getConnection().execute(
    position
      ? `update technician set lat = ?, lng = ?, position = st_setsrid(st_makepoint(?, ?), 4326)::geography, position_at = ? where id = ?`
      : `update technician set lat = null, lng = null, position = null, position_at = null where id = ?`,
    position ? [position.lat, position.lng, position.lng, position.lat, at, technicianId] : [technicianId],
    'run',
    em.getTransactionContext(),
  );
}
