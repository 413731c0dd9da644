import type { EntityManager } from '@mikro-orm/postgresql';
import { gazetteerEntry } from '../db/stores/geocoding.js';
import { addressKey, type GeocodeResult, type Geocoder } from './geocoder.js';

/** The offline default (D9): exact addresses and municipality names loaded by provisioning. */
export class GazetteerGeocoder implements Geocoder {
  constructor(private readonly em: () => EntityManager) {}

  async geocode(address: string): Promise<GeocodeResult | null> {
    const key = addressKey(address);
    if (!key) return null;
    const hit = await gazetteerEntry(this.em(), key);
    if (!hit) return null;
    return { lat: hit.lat, lng: hit.lng, ciudad: hit.ciudad ?? null, departamento: hit.departamento ?? null };
  }
}
