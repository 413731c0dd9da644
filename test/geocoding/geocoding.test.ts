import { expect } from 'chai';
import { DomainError } from '../../src/domain/errors.js';
import { geocode } from '../../src/domain/geocode.js';
import nock from 'nock';
import { readFileSync } from 'node:fs';
import { ConfigError, loadConfig } from '../../config/index.js';
import {
  createGeocoder,
  GazetteerGeocoder,
  GEOCODER_UNAVAILABLE,
  GeocoderError,
  type Geocoder,
} from '../../src/geocoding/index.js';
import { CachedGeocoder } from '../../src/geocoding/cache.js';
import { errorAnswer } from '../../src/api/errorTable.js';
import { GOOGLE_GEOCODING_URL, GoogleGeocoder } from '../../src/geocoding/google.js';
import { NominatimGeocoder } from '../../src/geocoding/nominatim.js';
import { resetDb } from '../helpers/db.js';
import { startApp, type TestApp } from '../helpers/harness.js';

/** Replies as the real services give them (test/fixtures/geocoding). */
const fixture = (name: string): nock.Body =>
  JSON.parse(readFileSync(new URL(`../../../test/fixtures/geocoding/${name}.json`, import.meta.url), 'utf8')) as nock.Body;

const NOMINATIM = 'http://nominatim.test';
const GOOGLE = new URL(GOOGLE_GEOCODING_URL);
const CALLE_100 = { lat: 4.6847392, lng: -74.0469108, ciudad: 'Bogotá', departamento: 'Bogotá Distrito Capital' };

async function failure(p: Promise<unknown>): Promise<GeocoderError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).to.be.instanceOf(GeocoderError);
  return err as GeocoderError;
}

describe('geocoders (D9)', () => {
  afterEach(() => nock.cleanAll());

  describe('Nominatim adapter', () => {
    const geocoder = new NominatimGeocoder(`${NOMINATIM}/`, 200);

    it('asks /search for one place with its address and reads coordinates, city and department', async () => {
      const scope = nock(NOMINATIM)
        .matchHeader('user-agent', /service-offer-broker/)
        .get('/search')
        .query({ q: 'Calle 100 # 15-20, Bogotá', format: 'jsonv2', addressdetails: '1', limit: '1' })
        .reply(200, fixture('nominatim-calle-100'));
      expect(await geocoder.geocode('Calle 100 # 15-20, Bogotá')).to.deep.equal(CALLE_100);
      expect(scope.isDone()).to.equal(true);
    });

    it('takes a town as the city when there is no city', async () => {
      nock(NOMINATIM).get('/search').query(true).reply(200, fixture('nominatim-chia'));
      expect(await geocoder.geocode('Chía')).to.deep.equal({ lat: 4.8612557, lng: -74.0325099, ciudad: 'Chía', departamento: 'Cundinamarca' });
    });

    it('no place is "not found" (null)', async () => {
      nock(NOMINATIM).get('/search').query(true).reply(200, []);
      expect(await geocoder.geocode('Calle que no existe 123')).to.equal(null);
    });

    it('a timeout, an error status or an unreadable reply is a GeocoderError (503 in the controller envelope)', async () => {
      nock(NOMINATIM).get('/search').query(true).delay(1000).reply(200, []);
      const timeout = await failure(geocoder.geocode('Calle 1'));
      expect(timeout.detail).to.equal('nominatim: timeout after 200 ms');
      // The domain's use of the port turns it into geocoder.unavailable, answered 503.
      nock(NOMINATIM).get('/search').query(true).delay(1000).reply(200, []);
      const unavailable = await geocode({ geocoder }, 'Calle 1').catch((err: unknown) => err);
      expect(unavailable).to.be.instanceOf(DomainError);
      expect(errorAnswer(unavailable, 'controller')?.status).to.equal(503);
      expect(errorAnswer(unavailable, 'controller')?.body).to.deep.equal({ status: false, msg: GEOCODER_UNAVAILABLE });
      nock(NOMINATIM).get('/search').query(true).reply(500, 'boom');
      expect((await failure(geocoder.geocode('Calle 1'))).detail).to.equal('nominatim: HTTP 500');
      nock(NOMINATIM).get('/search').query(true).reply(200, { error: 'no' });
      expect((await failure(geocoder.geocode('Calle 1'))).detail).to.match(/not a list/);
      const closed = new NominatimGeocoder('http://127.0.0.1:1', 200);
      expect((await failure(closed.geocode('Calle 1'))).detail).to.match(/^nominatim: ECONNREFUSED/);
    });
  });

  describe('Google adapter', () => {
    const geocoder = new GoogleGeocoder('test-google-key', 200);

    it('asks with the key, in Spanish, biased to Colombia; locality and administrative_area_level_1', async () => {
      const scope = nock(GOOGLE.origin)
        .get(GOOGLE.pathname)
        .query({ address: 'Calle 100 # 15-20, Bogotá', key: 'test-google-key', language: 'es', region: 'co' })
        .reply(200, fixture('google-calle-100'));
      expect(await geocoder.geocode('Calle 100 # 15-20, Bogotá')).to.deep.equal({
        lat: 4.6846915,
        lng: -74.0468402,
        ciudad: 'Bogotá',
        departamento: 'Bogotá, D.C.',
      });
      expect(scope.isDone()).to.equal(true);
    });

    it('ZERO_RESULTS is "not found" (null)', async () => {
      nock(GOOGLE.origin).get(GOOGLE.pathname).query(true).reply(200, fixture('google-zero-results'));
      expect(await geocoder.geocode('Calle que no existe 123')).to.equal(null);
    });

    it('REQUEST_DENIED and a timeout are GeocoderErrors', async () => {
      nock(GOOGLE.origin).get(GOOGLE.pathname).query(true).reply(200, fixture('google-request-denied'));
      expect((await failure(geocoder.geocode('Calle 1'))).detail).to.equal('google: REQUEST_DENIED The provided API key is invalid.');
      nock(GOOGLE.origin).get(GOOGLE.pathname).query(true).delay(1000).reply(200, fixture('google-zero-results'));
      expect((await failure(geocoder.geocode('Calle 1'))).detail).to.equal('google: timeout after 200 ms');
    });
  });

  describe('cache and configuration', () => {
    let app: TestApp;
    before(async () => {
      app = await startApp({ env: { GEOCODER: 'nominatim', NOMINATIM_URL: NOMINATIM, GEOCODER_TIMEOUT_MS: '200' } });
    });
    beforeEach(async () => resetDb(app.rt.orm));
    after(async () => app.close());

    const cached = (inner: Geocoder, ttl = 3600) => new CachedGeocoder(inner, 'nominatim', () => app.rt.orm.em.fork(), ttl);

    it('GEOCODER switches the runtime’s geocoder: here Nominatim behind the cache', async () => {
      expect(app.rt.geocoder).to.be.instanceOf(CachedGeocoder);
      nock(NOMINATIM).get('/search').query(true).once().reply(200, fixture('nominatim-calle-100'));
      expect(await app.rt.geocoder.geocode('Calle 100 # 15-20, Bogotá')).to.deep.equal(CALLE_100);
      const cfg = (env: Record<string, string>) => ({ ...loadConfig({ NODE_ENV: 'test', ...env }) });
      expect(createGeocoder(cfg({}), () => app.rt.orm.em.fork())).to.be.instanceOf(GazetteerGeocoder);
      expect(createGeocoder(cfg({ GEOCODER: 'google', GOOGLE_GEOCODING_KEY: 'k' }), () => app.rt.orm.em.fork())).to.be.instanceOf(CachedGeocoder);
      expect(() => loadConfig({ GEOCODER: 'google' })).to.throw(ConfigError, /GOOGLE_GEOCODING_KEY/);
      expect(() => loadConfig({ GEOCODER: 'bing' })).to.throw(ConfigError, /GEOCODER/);
    });

    it('resolves one address once, whatever its spelling, also when asked twice at the same time', async () => {
      const scope = nock(NOMINATIM).get('/search').query(true).once().reply(200, fixture('nominatim-calle-100'));
      const geocoder = cached(new NominatimGeocoder(NOMINATIM, 200));
      const [a, b] = await Promise.all([geocoder.geocode('Calle 100 # 15-20, Bogotá'), geocoder.geocode('Calle 100 # 15-20, Bogotá')]);
      expect(a).to.deep.equal(CALLE_100);
      expect(b).to.deep.equal(CALLE_100);
      expect(scope.isDone()).to.equal(true);
      // another process (a new cache object) reads the table; spelling and accents do not matter
      expect(await cached(new NominatimGeocoder(NOMINATIM, 200)).geocode('  CALLE 100 # 15-20,  BOGOTA ')).to.deep.equal(CALLE_100);
    });

    it('keeps a "no result" for the negative TTL only, and never keeps an error', async () => {
      nock(NOMINATIM).get('/search').query(true).once().reply(200, []);
      const geocoder = cached(new NominatimGeocoder(NOMINATIM, 200));
      expect(await geocoder.geocode('Calle 999')).to.equal(null);
      expect(await geocoder.geocode('Calle 999')).to.equal(null);
      // with a TTL of 0 the "no result" is asked again
      nock(NOMINATIM).get('/search').query(true).once().reply(200, fixture('nominatim-chia'));
      expect((await cached(new NominatimGeocoder(NOMINATIM, 200), 0).geocode('Calle 999'))?.ciudad).to.equal('Chía');

      nock(NOMINATIM).get('/search').query(true).once().reply(502, 'bad gateway');
      await failure(geocoder.geocode('Carrera 7'));
      nock(NOMINATIM).get('/search').query(true).once().reply(200, fixture('nominatim-calle-100'));
      expect(await geocoder.geocode('Carrera 7')).to.deep.equal(CALLE_100);
      const [row] = await app.rt.orm.em.getConnection().execute<Array<{ n: number }>>(`select count(*)::int as n from geocode_cache`);
      expect(row.n).to.equal(2);
    });
  });
});
