/**
 * Geocoding (decisions D9): the one interface every adapter implements, its
 * error, and the normalized key an address is looked up and cached by.
 */
import { storableText } from '../text.js';

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
 * status, a reply it cannot read); `detail` says what happened, for the logs.
 * The domain turns it into its `geocoder.unavailable` (src/domain/geocode.ts),
 * which the edge answers 503 (D9).
 */
export class GeocoderError extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'GeocoderError';
  }
}

/** A place name from a geocoder as it can be stored: no NUL or lone surrogate, at most 255 characters (issue 8.4). */
export function placeName(name: string | null | undefined): string | null {
  if (typeof name !== 'string') return null;
  const clean = storableText(name.trim()).slice(0, PLACE_NAME_MAX);
  return clean ? storableText(clean) : null;
}

/** offer.ciudad, offer.departamento and the gazetteer's columns are varchar(255). */
const PLACE_NAME_MAX = 255;

/** Lower case, accents removed, punctuation folded to single spaces. */
export function addressKey(address: string): string {
  return address
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9#]+/g, ' ')
    .trim();
}
