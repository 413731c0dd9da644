/**
 * Geocoding (decisions D9): the one interface every adapter implements, its
 * error, and the normalized key an address is looked up and cached by.
 */
import { HttpError } from '../http/errors.js';

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
 * status, a reply it cannot read). Raised as is, it answers 503 in the
 * controller envelope; `detail` says what happened, for the logs.
 */
export class GeocoderError extends HttpError {
  constructor(readonly detail: string) {
    super(503, { status: false, msg: GEOCODER_UNAVAILABLE });
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
