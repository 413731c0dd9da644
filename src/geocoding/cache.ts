import type { EntityManager } from '@mikro-orm/postgresql';
import { addressKey, type GeocodeResult, type Geocoder } from './geocoder.js';

interface CacheRow {
  lat: number | null;
  lng: number | null;
  ciudad: string | null;
  departamento: string | null;
  fresh: boolean;
}

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
    const conn = this.em().getConnection();
    const [row] = await conn.execute<CacheRow[]>(
      `select lat, lng, ciudad, departamento, resolved_at > now() - make_interval(secs => ?) as fresh
         from geocode_cache where provider = ? and address_key = ?`,
      [this.negativeTtlS, this.provider, key],
    );
    if (row && row.lat != null && row.lng != null) {
      return { lat: Number(row.lat), lng: Number(row.lng), ciudad: row.ciudad, departamento: row.departamento };
    }
    if (row?.fresh) return null;
    const result = await this.inner.geocode(address);
    await conn.execute(
      `insert into geocode_cache (provider, address_key, lat, lng, ciudad, departamento, resolved_at)
       values (?, ?, ?, ?, ?, ?, now())
       on conflict (provider, address_key) do update
         set lat = excluded.lat, lng = excluded.lng, ciudad = excluded.ciudad,
             departamento = excluded.departamento, resolved_at = excluded.resolved_at`,
      [this.provider, key, result?.lat ?? null, result?.lng ?? null, result?.ciudad ?? null, result?.departamento ?? null],
    );
    return result;
  }
}
