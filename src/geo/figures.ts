/**
 * True figures of a response (spec 2.3, decisions D2): geodesic distance in km
 * from the technician to the offer's origin, computed by PostGIS, and the
 * arrival time (given, or estimated from the distance at the configured speed).
 */
import type { EntityManager } from '@mikro-orm/postgresql';

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

export function estimateMinutes(distanceKm: number, averageSpeedKmh: number): number {
  return Math.max(1, Math.round((distanceKm / averageSpeedKmh) * 60));
}

export async function computeResponseFigures(
  em: EntityManager,
  input: FiguresInput,
  averageSpeedKmh: number,
): Promise<ResponseFigures> {
  const hasCoords = typeof input.lat === 'number' && typeof input.lng === 'number';
  const rows = await em.getConnection().execute<Array<{ distance_m: number | null; lat: number | null; lng: number | null }>>(
    `select st_distance(o.origin, p.pt) as distance_m, st_y(p.pt::geometry) as lat, st_x(p.pt::geometry) as lng
       from offer o
       cross join lateral (
         select case when ?::boolean then st_setsrid(st_makepoint(?, ?), 4326)::geography
                     else (select t.position from technician t where t.id = ?) end as pt
       ) p
      where o.uuid = ?`,
    [hasCoords, input.lng ?? 0, input.lat ?? 0, input.technicianId, input.offerUuid],
  );
  const row = rows[0];
  const distanceKm = row?.distance_m != null ? Math.round((Number(row.distance_m) / 1000) * 100) / 100 : 0;
  const given = typeof input.minutes === 'number' && Number.isFinite(input.minutes) && input.minutes >= 0;
  return {
    distanceKm,
    timeMin: given ? (input.minutes as number) : estimateMinutes(distanceKm, averageSpeedKmh),
    timeGiven: given,
    techLat: row?.lat ?? null,
    techLng: row?.lng ?? null,
  };
}
