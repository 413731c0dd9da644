/**
 * Coordinates as clients send them (spec 2.1): numbers or numeric strings
 * (plain decimals, dot as separator); absent, an empty string, null or 0 count
 * as missing. One reader for every endpoint, so a value means the same
 * everywhere.
 */
/**
 * A JSON string that is a plain decimal number (dot as separator), or empty,
 * spaces around allowed. Written so that no two repetitions can match the same
 * spaces (the trailing spaces only after a number): linear time (issue 8).
 */
export const NUMERIC_OR_EMPTY = '^\\s*(?:[-+]?[0-9]+(?:\\.[0-9]+)?\\s*)?$';
/** The longest coordinate string a client may send (D19). */
export const MAX_COORDINATE_LENGTH = 32;

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

export type CoordinateValue = number | string | null | undefined;

const NUMERIC = new RegExp(NUMERIC_OR_EMPTY);

function read(value: CoordinateValue, axis: Axis): number | null | 'invalid' {
  if (typeof value === 'string' && !NUMERIC.test(value)) return 'invalid';
  if (typeof value === 'number' && !Number.isFinite(value)) return 'invalid';
  const n = coordinate(value, axis);
  return n === 'out-of-range' ? 'invalid' : n;
}

/** A point when both coordinates are present and valid; null when either is missing; 'invalid' when one is unreadable or out of range. */
export function readPoint(lat: CoordinateValue, lng: CoordinateValue): { lat: number; lng: number } | null | 'invalid' {
  const la = read(lat, 'lat');
  const ln = read(lng, 'lng');
  if (la === 'invalid' || ln === 'invalid') return 'invalid';
  return point(la, ln);
}
