import { type GeocodeResult, type Geocoder, GeocoderError, placeName } from './geocoder.js';
import { getJson, toNumber } from './http.js';

export const GOOGLE_GEOCODING_URL = 'https://maps.googleapis.com/maps/api/geocode/json';

interface GoogleReply {
  status?: string;
  error_message?: string;
  results?: Array<{
    geometry?: { location?: { lat?: unknown; lng?: unknown } };
    address_components?: Array<{ long_name?: string; types?: string[] }>;
  }>;
}

/**
 * Google's Geocoding API: the first result; ciudad from locality (else
 * administrative_area_level_2), departamento from administrative_area_level_1.
 * ZERO_RESULTS is "not found"; any other non-OK status is a GeocoderError.
 */
export class GoogleGeocoder implements Geocoder {
  constructor(
    private readonly apiKey: string,
    private readonly timeoutMs: number,
    private readonly url = GOOGLE_GEOCODING_URL,
  ) {}

  async geocode(address: string): Promise<GeocodeResult | null> {
    const body = (await getJson(
      'google',
      this.url,
      { address, key: this.apiKey, language: 'es', region: 'co' },
      this.timeoutMs,
    )) as GoogleReply | null;
    const status = body?.status;
    if (status === 'ZERO_RESULTS') return null;
    if (status !== 'OK') throw new GeocoderError(`google: ${status ?? 'no status'} ${body?.error_message ?? ''}`.trim());
    const first = body?.results?.[0];
    if (!first) return null;
    const lat = toNumber(first.geometry?.location?.lat);
    const lng = toNumber(first.geometry?.location?.lng);
    if (lat === null || lng === null) throw new GeocoderError('google: a result without coordinates');
    const part = (type: string) => first.address_components?.find((c) => c.types?.includes(type))?.long_name ?? null;
    return {
      lat,
      lng,
      ciudad: placeName(part('locality') ?? part('administrative_area_level_2')),
      departamento: placeName(part('administrative_area_level_1')),
    };
  }
}
