/**
 * Geocoding (decisions D9): one interface, adapters chosen by configuration
 * (GEOCODER). The offline default is the gazetteer table that operators load;
 * the HTTP adapters (Nominatim-compatible, Google) sit behind a cache.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config/index.js';
import { CachedGeocoder } from './cache.js';
import { GazetteerGeocoder } from './gazetteer.js';
import type { Geocoder } from './geocoder.js';
import { GoogleGeocoder } from './google.js';
import { NominatimGeocoder } from './nominatim.js';

export * from './geocoder.js';
export { GazetteerGeocoder } from './gazetteer.js';

type GeocoderConfig = Pick<Config, 'geocoder' | 'nominatimUrl' | 'googleGeocodingKey' | 'geocoderTimeoutMs' | 'geocoderNegativeTtlS'>;

/** The geocoder GEOCODER names; `em` gives the EntityManager of the current context. */
export function createGeocoder(cfg: GeocoderConfig, em: () => EntityManager): Geocoder {
  switch (cfg.geocoder) {
    case 'gazetteer':
      return new GazetteerGeocoder(em);
    case 'nominatim':
      return new CachedGeocoder(new NominatimGeocoder(cfg.nominatimUrl, cfg.geocoderTimeoutMs), 'nominatim', em, cfg.geocoderNegativeTtlS);
    case 'google':
      return new CachedGeocoder(new GoogleGeocoder(cfg.googleGeocodingKey, cfg.geocoderTimeoutMs), 'google', em, cfg.geocoderNegativeTtlS);
  }
}
