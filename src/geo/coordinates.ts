/** Coordinates as clients send them: numbers or numeric strings; absent, empty or 0 count as missing (spec 2.1). */
export type CoordinateValue = number | string | null | undefined;

function read(value: CoordinateValue, limit: number): number | null | 'invalid' {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return null;
  const n = typeof value === 'number' ? value : Number(value.trim());
  if (!Number.isFinite(n) || Math.abs(n) > limit) return 'invalid';
  return n === 0 ? null : n;
}

/** A point when both coordinates are present and valid; null when either is missing; 'invalid' when one is unreadable or out of range. */
export function readPoint(lat: CoordinateValue, lng: CoordinateValue): { lat: number; lng: number } | null | 'invalid' {
  const la = read(lat, 90);
  const ln = read(lng, 180);
  if (la === 'invalid' || ln === 'invalid') return 'invalid';
  return la === null || ln === null ? null : { lat: la, lng: ln };
}
