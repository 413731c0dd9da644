/**
 * Geocoding (decisions D9): one interface, adapters chosen by configuration.
 * The offline default is the gazetteer table that operators load.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { GazetteerEntry } from '../db/entities/index.js';

export interface GeocodeResult {
  lat: number;
  lng: number;
  ciudad: string | null;
  departamento: string | null;
}

export interface Geocoder {
  /** null when the address cannot be identified */
  geocode(address: string): Promise<GeocodeResult | null>;
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

/** Resolves exact addresses and municipality names loaded by provisioning. */
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
