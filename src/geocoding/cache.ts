import type { EntityManager } from '@mikro-orm/postgresql';
import { cacheGeocode, cachedGeocode } from '../db/stores/geocoding.js';
import { addressKey, type GeocodeResult, type Geocoder } from './geocoder.js';

/**
 * Resolves each address once (D9): results of an HTTP geocoder are kept in
 * geocode_cache by provider and normalized address; a "no result" is kept
 * `negativeTtlS` seconds; errors are never cached. Simultaneous lookups of
 * one address in a process share one call.
 */
export class CachedGeocoder implements Geocoder {
  private readonly inflight = new Map<string, Promise<GeocodeResult | null>>();

  constructor(
    private readonly inner: Geocoder,
    private readonly provider: string,
    private readonly em: () => EntityManager,
    private readonly negativeTtlS: number,
  ) {}

  geocode(address: string): Promise<GeocodeResult | null> {
    const key = addressKey(address);
    if (!key) return Promise.resolve(null);
    let p = this.inflight.get(key);
    if (!p) {
      p = this.resolve(key, address).finally(() => this.inflight.delete(key));
      this.inflight.set(key, p);
    }
    return p;
  }

  private async resolve(key: string, address: string): Promise<GeocodeResult | null> {
    const em = this.em();
    const row = await cachedGeocode(em, this.provider, key, this.negativeTtlS);
    if (row && row.lat != null && row.lng != null) {
      return { lat: Number(row.lat), lng: Number(row.lng), ciudad: row.ciudad, departamento: row.departamento };
    }
    if (row?.fresh) return null;
    const result = await this.inner.geocode(address);
    await cacheGeocode(em, this.provider, key, result);
    return result;
  }
}
