/** Plane geometry good enough for a city: distances, a point near another, and routes to interpolate. */
export interface Point {
  lat: number;
  lng: number;
}

const EARTH_KM = 6371;
const rad = (d: number) => (d * Math.PI) / 180;

export function distanceKm(a: Point, b: Point): number {
  const dLat = rad(b.lat - a.lat);
  const dLng = rad(b.lng - a.lng);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_KM * Math.asin(Math.sqrt(h));
}

/** The point `km` away from `from` at `bearingDeg` (0 north, 90 east). */
export function offset(from: Point, km: number, bearingDeg: number): Point {
  const dLat = (km * Math.cos(rad(bearingDeg))) / 111.32;
  const dLng = (km * Math.sin(rad(bearingDeg))) / (111.32 * Math.cos(rad(from.lat)));
  return { lat: round(from.lat + dLat), lng: round(from.lng + dLng) };
}

export const round = (x: number): number => Math.round(x * 1e6) / 1e6;

/**
 * A street-like route: first along one axis, then the other (the corner
 * shifted a little), as a driver in a grid would go rather than as the crow flies.
 */
export function streetRoute(from: Point, to: Point, jitter: number): Point[] {
  const corner = jitter < 0.5 ? { lat: from.lat, lng: to.lng } : { lat: to.lat, lng: from.lng };
  return [from, { lat: round(corner.lat + (jitter - 0.5) * 0.002), lng: round(corner.lng) }, to];
}

/** The point at `fraction` (0..1) of a route's length. */
export function along(route: readonly Point[], fraction: number): Point {
  const legs = route.slice(1).map((p, i) => distanceKm(route[i], p));
  const total = legs.reduce((s, l) => s + l, 0);
  let left = Math.min(1, Math.max(0, fraction)) * total;
  for (let i = 0; i < legs.length; i++) {
    if (left <= legs[i] || i === legs.length - 1) {
      const f = legs[i] === 0 ? 1 : Math.min(1, left / legs[i]);
      const a = route[i];
      const b = route[i + 1];
      return { lat: round(a.lat + (b.lat - a.lat) * f), lng: round(a.lng + (b.lng - a.lng) * f) };
    }
    left -= legs[i];
  }
  return route[route.length - 1];
}
