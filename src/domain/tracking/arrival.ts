/**
 * When the technician should arrive, as the customer sees it (issue 31,
 * decisions CUS-2): a clock time, not a number of minutes that never moves.
 * First the technician's own promise (`tiempoLlegadaSitio`, or D2's estimate
 * when none was given) counted from when it was given; once the technician
 * reports a position after that and has moved, the distance left to the
 * origin at a plausible speed, counted from that position's time. Pure: the
 * caller reads the facts.
 */

/** Roads are longer than the straight line: the distance left is multiplied by this (urban detour factor). */
export const DETOUR_FACTOR = 1.4;
/** A position within this many metres of where the promise was made is not a move. */
export const MOVED_METRES = 50;
/** A position older than this is told as stale ("última posición hace N min"). */
export const STALE_POSITION_MS = 2 * 60_000;

export interface LatLng {
  lat: number;
  lng: number;
}

export interface Arrival {
  /** the expected arrival, ISO 8601 */
  hora: string;
  /** `tecnico`: the promise counted down; `distancia`: from the last position */
  fuente: 'tecnico' | 'distancia';
}

/** Great-circle distance in metres. */
export function distanceMetres(a: LatLng, b: LatLng): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * 6371_000 * Math.asin(Math.min(1, Math.sqrt(h)));
}

export interface ArrivalFacts {
  origin: LatLng;
  /** the technician's last position while on the way, and when it was reported */
  position: (LatLng & { at: Date }) | null;
  /** the accepted response: its minutes, when given, and where the technician was then */
  promise: { minutes: number; givenAt: Date; from: LatLng | null } | null;
  speedKmh: number;
}

export function arrivalOf(f: ArrivalFacts): Arrival | null {
  const { position, promise } = f;
  const moved =
    position !== null &&
    (promise === null || (position.at.getTime() > promise.givenAt.getTime() && (promise.from === null || distanceMetres(position, promise.from) > MOVED_METRES)));
  if (position && moved) {
    const hours = ((distanceMetres(position, f.origin) * DETOUR_FACTOR) / 1000) / f.speedKmh;
    return { hora: new Date(position.at.getTime() + hours * 3_600_000).toISOString(), fuente: 'distancia' };
  }
  if (promise) return { hora: new Date(promise.givenAt.getTime() + promise.minutes * 60_000).toISOString(), fuente: 'tecnico' };
  return null;
}

/** Whole minutes from `now` to the arrival, never below 0. */
export const minutesUntil = (a: Arrival, now = Date.now()): number => Math.max(0, Math.ceil((Date.parse(a.hora) - now) / 60_000));
