/**
 * The domain's use of the geocoder port (D9): an address to a place, or null
 * when it cannot be identified; a geocoder that cannot answer is the domain
 * error `geocoder.unavailable` (answered 503), with the adapter's detail for
 * the logs.
 */
import { GeocoderError, type GeocodeResult } from '../geocoding/geocoder.js';
import { DomainError } from './errors.js';
import type { Runtime } from './ports.js';

export async function geocode(rt: Pick<Runtime, 'geocoder'>, address: string): Promise<GeocodeResult | null> {
  try {
    return await rt.geocoder.geocode(address);
  } catch (err) {
    if (err instanceof GeocoderError) throw new DomainError('geocoder.unavailable', { detail: err.detail });
    throw err;
  }
}
