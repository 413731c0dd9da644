/**
 * True figures of a response (spec 2.3, decisions D2): geodesic distance in km
 * (WGS 84 spheroid, computed by PostGIS) from the technician to the offer's
 * origin, and the arrival time (given, or estimated from the distance at the
 * configured speed). The technician's point is the acceptance's coordinates
 * when valid, else the last known position; techCoords are that same point.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { distanceFromOrigin } from '../db/stores/offers.js';
import { DomainError } from '../domain/errors.js';

export interface ResponseFigures {
  distanceKm: number;
  timeMin: number;
  timeGiven: boolean;
  techLat: number | null;
  techLng: number | null;
}

export interface FiguresInput {
  offerUuid: string;
  technicianId: number;
  /** the acceptance's coordinates; else the technician's last known position */
  lat?: number | null;
  lng?: number | null;
  /** tiempoLlegadaSitio */
  minutes?: number | null;
}

export const UNKNOWN_POSITION_MESSAGE =
  'NO SE CONOCE LA POSICIÓN DEL TÉCNICO: ENVÍA latitudTecnico Y longitudTecnico, O REPORTA SU POSICIÓN ANTES DE RESPONDER';

/** Finite, in range, and not (0, 0): coordinates equal to 0 count as missing (spec 2.1). */
export function validCoords(lat: number | null | undefined, lng: number | null | undefined): boolean {
  return (
    typeof lat === 'number' &&
    typeof lng === 'number' &&
    Number.isFinite(lat) &&
    Number.isFinite(lng) &&
    Math.abs(lat) <= 90 &&
    Math.abs(lng) <= 180 &&
    !(lat === 0 && lng === 0)
  );
}

export function estimateMinutes(distanceKm: number, averageSpeedKmh: number): number {
  return Math.max(1, Math.round((distanceKm / averageSpeedKmh) * 60));
}

/**
 * The figures of a technician's response to an offer. Throws
 * `acceptance.position-unknown` when the technician's point is unknown (no valid coordinates
 * given and no position ever reported): a response without a distance could
 * not be ranked fairly (D2).
 */
export async function computeResponseFigures(
  em: EntityManager,
  input: FiguresInput,
  averageSpeedKmh: number,
): Promise<ResponseFigures> {
  const given = validCoords(input.lat, input.lng);
  const row = await distanceFromOrigin(em, {
    offerUuid: input.offerUuid,
    technicianId: input.technicianId,
    point: given ? { lat: input.lat as number, lng: input.lng as number } : null,
  });
  if (!row) throw new Error(`offer ${input.offerUuid} not found`);
  return responseFigures(row, input.minutes, input.technicianId, averageSpeedKmh);
}

/**
 * The figures from a distance (m) and the point it was measured from, as PostgreSQL computed them; throws
 * `acceptance.position-unknown` when there was no point.
 */
export function responseFigures(
  row: { distance_m: number | null; lat: number | null; lng: number | null },
  minutes: number | null | undefined,
  technicianId: number,
  averageSpeedKmh: number,
): ResponseFigures {
  if (row.distance_m == null) throw new DomainError('acceptance.position-unknown', { technicianId });
  const distanceKm = Math.round(Number(row.distance_m)) / 1000;
  const minutesGiven = typeof minutes === 'number' && Number.isFinite(minutes) && minutes >= 0;
  return {
    distanceKm,
    timeMin: minutesGiven ? (minutes as number) : estimateMinutes(distanceKm, averageSpeedKmh),
    timeGiven: minutesGiven,
    techLat: row.lat == null ? null : Number(row.lat),
    techLng: row.lng == null ? null : Number(row.lng),
  };
}
