/**
 * Writing the PostGIS columns: a central's coverage areas (one row per
 * service type, validated here) and a technician's position. Used by
 * provisioning, the position endpoint and the tests; the statements are in
 * the tables' stores (src/db/stores/coverage.ts, technicians.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { inspectCoverage, replaceAreas, type Coverage } from '../db/stores/coverage.js';

export type { Coverage } from '../db/stores/coverage.js';
export { setTechnicianPosition } from '../db/stores/technicians.js';

/** A coverage PostGIS cannot read or that is not a valid area (self-intersecting, unclosed ring...). */
export class CoverageError extends Error {
  constructor(readonly reason: string) {
    super(`invalid coverage: ${reason}`);
    this.name = 'CoverageError';
  }
}

/**
 * Checks that the coverage is a valid, non-empty area; throws CoverageError
 * (with PostGIS's reason) otherwise; a caller's transaction survives it.
 */
export async function checkCoverage(em: EntityManager, coverage: Coverage): Promise<void> {
  if ('center' in coverage && !(coverage.radiusKm > 0)) throw new CoverageError('the radius must be greater than 0');
  let row: Awaited<ReturnType<typeof inspectCoverage>>;
  try {
    row = await inspectCoverage(em, coverage);
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
  return replaceAreas(em, centralId, serviceTypeIds, coverage);
}
