/**
 * fechaCita and horaCita are wall-clock values in Colombia (spec 2.1): the
 * instant they name, computed with the platform's time-zone data.
 */

export const APPOINTMENT_TIME_ZONE = 'America/Bogota';

/** Offset (ms) of a time zone from UTC at an instant. */
function zoneOffsetMs(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(instant));
  const get = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - instant;
}

/** The instant of a wall-clock date and time in the appointment time zone; null when the date does not exist. */
export function appointmentInstant(date: string, time: string | null): Date | null {
  const [y, m, d] = date.split('-').map(Number);
  const [hh, mm, ss] = (time ?? '00:00').split(':').map(Number);
  const wall = Date.UTC(y, m - 1, d, hh, mm, ss ?? 0);
  const check = new Date(wall);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== m - 1 || check.getUTCDate() !== d) return null;
  return new Date(wall - zoneOffsetMs(wall, APPOINTMENT_TIME_ZONE));
}
