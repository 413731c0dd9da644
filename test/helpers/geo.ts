/**
 * Test helpers of the geo dispatch area: polygons, an independent geodesic
 * distance (Vincenty), live events captured from the Redis bus, and polling
 * with a deadline.
 */
import { Redis } from 'ioredis';
import { busChannel, perTechnician, type BusMessage } from '../../src/realtime/bus.js';

export interface LatLng {
  lat: number;
  lng: number;
}

/** An axis-aligned square GeoJSON Polygon (lon, lat order) of half-side `half` degrees. */
export function square(c: LatLng, half: number): { type: 'Polygon'; coordinates: number[][][] } {
  const [w, e, s, n] = [c.lng - half, c.lng + half, c.lat - half, c.lat + half];
  return { type: 'Polygon', coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] };
}

/** Inverse Vincenty on the WGS 84 ellipsoid, in km: an independent check of PostGIS's distances. */
export function vincentyKm(p1: LatLng, p2: LatLng): number {
  const a = 6378137;
  const f = 1 / 298.257223563;
  const b = (1 - f) * a;
  const rad = Math.PI / 180;
  const L = (p2.lng - p1.lng) * rad;
  const U1 = Math.atan((1 - f) * Math.tan(p1.lat * rad));
  const U2 = Math.atan((1 - f) * Math.tan(p2.lat * rad));
  const [sinU1, cosU1, sinU2, cosU2] = [Math.sin(U1), Math.cos(U1), Math.sin(U2), Math.cos(U2)];
  let lambda = L;
  let sinSigma = 0, cosSigma = 0, sigma = 0, cos2Alpha = 0, cos2SigmaM = 0;
  for (let i = 0; i < 200; i++) {
    const sinL = Math.sin(lambda);
    const cosL = Math.cos(lambda);
    sinSigma = Math.sqrt((cosU2 * sinL) ** 2 + (cosU1 * sinU2 - sinU1 * cosU2 * cosL) ** 2);
    if (sinSigma === 0) return 0;
    cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosL;
    sigma = Math.atan2(sinSigma, cosSigma);
    const sinAlpha = (cosU1 * cosU2 * sinL) / sinSigma;
    cos2Alpha = 1 - sinAlpha ** 2;
    cos2SigmaM = cos2Alpha === 0 ? 0 : cosSigma - (2 * sinU1 * sinU2) / cos2Alpha;
    const C = (f / 16) * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha));
    const prev = lambda;
    lambda = L + (1 - C) * f * sinAlpha * (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (-1 + 2 * cos2SigmaM ** 2)));
    if (Math.abs(lambda - prev) < 1e-12) break;
  }
  const u2 = (cos2Alpha * (a * a - b * b)) / (b * b);
  const A = 1 + (u2 / 16384) * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)));
  const B = (u2 / 1024) * (256 + u2 * (-128 + u2 * (74 - 47 * u2)));
  const dSigma =
    B * sinSigma * (cos2SigmaM + (B / 4) * (cosSigma * (-1 + 2 * cos2SigmaM ** 2) - (B / 6) * cos2SigmaM * (-3 + 4 * sinSigma ** 2) * (-3 + 4 * cos2SigmaM ** 2)));
  return (b * A * (sigma - dSigma)) / 1000;
}

/** The point `km` kilometres due north of `p` (for radius tests). */
export function northOf(p: LatLng, km: number): LatLng {
  // Bisection on Vincenty: exact enough (mm) for any test radius.
  let lo = p.lat;
  let hi = p.lat + km / 100;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (vincentyKm(p, { lat: mid, lng: p.lng }) < km) lo = mid;
    else hi = mid;
  }
  return { lat: (lo + hi) / 2, lng: p.lng };
}

/** Collects every message published on the run's real-time bus. */
export async function captureEvents(redisUrl: string, prefix: string): Promise<{ messages: BusMessage[]; close(): void }> {
  const sub = new Redis(redisUrl);
  const messages: BusMessage[] = [];
  // a distribution's one `technicians` message counts as the per-technician events it stands for
  sub.on('message', (_channel: string, raw: string) => messages.push(...perTechnician(JSON.parse(raw) as BusMessage)));
  await sub.subscribe(busChannel(prefix));
  return { messages, close: () => sub.disconnect() };
}

