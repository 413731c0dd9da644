/**
 * "Who gets this offer" (decisions D8): the centrals whose coverage for the
 * service type contains the point, and their available technicians of that
 * type, not busy with a service (D16), with a fresh position within the
 * radius, nearest first, at most `cap`. One indexed statement, for one offer
 * or a distribution batch (its home: src/db/stores/technicians.ts); here its
 * rows are read as covering centrals and nearby technicians.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { candidateRows, candidateRowsMany, type CandidateQuery, type CandidateRow, type KeyedCandidateQuery } from '../../db/stores/technicians.js';

export type { CandidateQuery, KeyedCandidateQuery } from '../../db/stores/technicians.js';

/** A technician the offer goes to. */
export interface NearbyTechnician {
  technicianId: number;
  dni: string;
  centralId: number;
  /** geodesic distance to the point (m) */
  distanceM: number;
}

export interface Candidates {
  /** ids of the covering centrals */
  centrals: number[];
  /** nearest first */
  technicians: NearbyTechnician[];
}

/** Adds a row to its offer's candidates: a covering central, or one of its technicians. */
function add(c: Candidates, r: CandidateRow): void {
  if (r.technician_id === null) c.centrals.push(r.central_id);
  else c.technicians.push({ technicianId: r.technician_id, dni: String(r.technician_dni), centralId: r.central_id, distanceM: Number(r.distance_m) });
}

export async function findCandidates(em: EntityManager, q: CandidateQuery): Promise<Candidates> {
  const out: Candidates = { centrals: [], technicians: [] };
  for (const r of await candidateRows(em, q)) add(out, r);
  return out;
}

/** The candidates of each offer of a batch, by key, in one statement (offers without any map to empty lists). */
export async function findCandidatesMany(em: EntityManager, qs: readonly KeyedCandidateQuery[]): Promise<Map<string, Candidates>> {
  const out = new Map<string, Candidates>(qs.map((q) => [q.key, { centrals: [], technicians: [] }]));
  if (!qs.length) return out;
  for (const r of await candidateRowsMany(em, qs)) add(out.get(r.k)!, r);
  return out;
}
