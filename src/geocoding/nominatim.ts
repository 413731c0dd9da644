import { type GeocodeResult, type Geocoder, GeocoderError, placeName } from './geocoder.js';
import { getJson, toNumber } from './http.js';

interface NominatimPlace {
  lat?: unknown;
  lon?: unknown;
  address?: Record<string, unknown>;
}

const CITY_KEYS = ['city', 'town', 'village', 'municipality', 'hamlet', 'county'];

function firstString(obj: Record<string, unknown> | undefined, keys: string[]): string | null {
  for (const k of keys) {
    const v = obj?.[k];
    if (typeof v === 'string' && v.trim()) return v.trim();
  }
  return null;
}

/**
 * A Nominatim-compatible server (`/search?format=jsonv2&addressdetails=1`):
 * the first place; ciudad from city/town/village/municipality, departamento
 * from state.
 */
export class NominatimGeocoder implements Geocoder {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  async geocode(address: string): Promise<GeocodeResult | null> {
    const body = await getJson(
      'nominatim',
      `${this.baseUrl.replace(/\/+$/, '')}/search`,
      { q: address, format: 'jsonv2', addressdetails: 1, limit: 1 },
      this.timeoutMs,
    );
    if (!Array.isArray(body)) throw new GeocoderError('nominatim: the reply is not a list of places');
    const place = body[0] as NominatimPlace | undefined;
    if (!place) return null;
    const lat = toNumber(place.lat);
    const lng = toNumber(place.lon);
    if (lat === null || lng === null) throw new GeocoderError('nominatim: a place without coordinates');
    return {
      lat,
      lng,
      ciudad: placeName(firstString(place.address, CITY_KEYS)),
      departamento: placeName(firstString(place.address, ['state'])),
    };
  }
}
