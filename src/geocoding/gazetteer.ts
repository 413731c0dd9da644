import type { EntityManager } from '@mikro-orm/postgresql';
import { GazetteerEntry } from '../db/entities/index.js';
import { addressKey, type GeocodeResult, type Geocoder } from './geocoder.js';

/** The offline default (D9): exact addresses and municipality names loaded by provisioning. */
export class GazetteerGeocoder implements Geocoder {
  constructor(private readonly em: () => EntityManager) {}

  async geocode(address: string): Promise<GeocodeResult | null> {
    const key = addressKey(address);
    if (!key) return null;
    const hit = await this.em().findOne(GazetteerEntry, { addressKey: key });
    if (!hit) return null;
    return { lat: hit.lat, lng: hit.lng, ciudad: hit.ciudad ?? null, departamento: hit.departamento ?? null };
  }
}
