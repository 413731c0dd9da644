/**
 * The geocoders' tables (D9): `geocode_cache` (an HTTP geocoder's results by
 * provider and normalized address) and `gazetteer` (exact addresses and
 * municipality names loaded by provisioning).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { GazetteerEntry } from '../entities/index.js';

/** A cached result (null coordinates: "no result"), and whether it was resolved within the last `freshS` seconds. */
export interface CachedGeocodeRow {
  lat: number | null;
  lng: number | null;
  ciudad: string | null;
  departamento: string | null;
  fresh: boolean;
}

/** The provider's cached result for an address key, if any. */
export async function cachedGeocode(em: EntityManager, provider: string, addressKey: string, freshS: number): Promise<CachedGeocodeRow | undefined> {
  const [row] = await em.getConnection().execute<CachedGeocodeRow[]>(
    `select lat, lng, ciudad, departamento, resolved_at > now() - make_interval(secs => ?) as fresh
       from geocode_cache where provider = ? and address_key = ?`,
    [freshS, provider, addressKey],
  );
  return row;
}

/** Stores (or replaces) the provider's result for an address key, resolved now; null: "no result". */
export async function cacheGeocode(
  em: EntityManager,
  provider: string,
  addressKey: string,
  result: { lat: number; lng: number; ciudad: string | null; departamento: string | null } | null,
): Promise<void> {
  await em.getConnection().execute(
    `insert into geocode_cache (provider, address_key, lat, lng, ciudad, departamento, resolved_at)
     values (?, ?, ?, ?, ?, ?, now())
     on conflict (provider, address_key) do update
       set lat = excluded.lat, lng = excluded.lng, ciudad = excluded.ciudad,
           departamento = excluded.departamento, resolved_at = excluded.resolved_at`,
    [provider, addressKey, result?.lat ?? null, result?.lng ?? null, result?.ciudad ?? null, result?.departamento ?? null],
  );
}

/** The gazetteer's entry for an address key, if any. */
export async function gazetteerEntry(em: EntityManager, addressKey: string): Promise<GazetteerEntry | null> {
  return em.findOne(GazetteerEntry, { addressKey });
}
