/**
 * Geocoding (decisions D9): the one interface every adapter implements, its
 * error, and the normalized key an address is looked up and cached by.
 */
import { DomainError } from '../domain/errors.js';

export interface GeocodeResult {
  lat: number;
  lng: number;
  ciudad: string | null;
  departamento: string | null;
}

export interface Geocoder {
  /** null when the address cannot be identified; throws GeocoderError when the geocoder cannot answer */
  geocode(address: string): Promise<GeocodeResult | null>;
}

export const GEOCODER_UNAVAILABLE =
  'EL SERVICIO DE GEOCODIFICACIÓN NO ESTÁ DISPONIBLE EN ESTE MOMENTO; ENVÍA LAS COORDENADAS O INTENTA MÁS TARDE';

/**
 * The geocoder did not answer usefully (timeout, connection refused, an error
 * status, a reply it cannot read): the domain error `geocoder.unavailable`,
 * which the HTTP edge answers 503 (src/http/errorMap.ts); `detail` says what
 * happened, for the logs.
 */
export class GeocoderError extends DomainError<'geocoder.unavailable'> {
  constructor(readonly detail: string) {
    super('geocoder.unavailable', { detail });
    this.name = 'GeocoderError';
  }
}

/** Lower case, accents removed, punctuation folded to single spaces. */
export function addressKey(address: string): string {
  return address
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9#]+/g, ' ')
    .trim();
}
