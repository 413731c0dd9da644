/**
 * Coordinates as clients send them (spec 2.1): numbers or numeric strings;
 * 0, an empty string or null count as missing.
 */

/** A JSON string that is a plain decimal number (dot as separator), or empty. */
export const NUMERIC_OR_EMPTY = '^\\s*([-+]?[0-9]+(\\.[0-9]+)?)?\\s*$';

export type Axis = 'lat' | 'lng';

const LIMIT: Record<Axis, number> = { lat: 90, lng: 180 };

/** The number, null when missing, or 'out-of-range'. Expects a value that passed NUMERIC_OR_EMPTY. */
export function coordinate(value: number | string | null | undefined, axis: Axis): number | null | 'out-of-range' {
  if (value === null || value === undefined) return null;
  const n = typeof value === 'number' ? value : value.trim() === '' ? 0 : Number(value);
  if (n === 0) return null;
  return Math.abs(n) <= LIMIT[axis] ? n : 'out-of-range';
}

export function rangeText(axis: Axis): string {
  return `-${LIMIT[axis]} Y ${LIMIT[axis]}`;
}

/** Both coordinates of a point, or null when either is missing. */
export function point(lat: number | null, lng: number | null): { lat: number; lng: number } | null {
  return lat !== null && lng !== null ? { lat, lng } : null;
}
