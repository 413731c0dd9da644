/**
 * The credential cache (issue 12 item 5): a verified Basic pair or API key
 * costs no lookup for AUTH_CACHE_TTL_MS; a status change or a new key takes
 * effect within it on every process, and provisioning's invalidation empties
 * every process's cache at once. A hit hands out the verified user itself and
 * forks no EntityManager; the routes take it as they take a looked-up one.
 */
import { expect } from 'chai';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CredentialCache, publishAuthInvalidation } from '../../src/auth/cache.js';
import { authenticateApiKey, authenticateBasic } from '../../src/auth/credentials.js';
import { apiKeyHash } from '../../src/auth/passwords.js';
import { Offer } from '../../src/db/entities/index.js';
import { makeApiUser, makeGenerator, makeServiceType } from '../helpers/factories.js';
import { offerBody } from '../helpers/offers.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { resetDb } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';

const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

describe('credential cache (issue 12 item 5)', () => {
  let a: TestApp;
  let b: TestApp;
  before(async () => {
    a = await startApp({ env: { AUTH_CACHE_TTL_MS: '60000' } });
    b = await startApp({ env: { AUTH_CACHE_TTL_MS: '60000' } });
    await resetDb(a.rt.orm);
  });
  after(async () => {
    await b.close();
    await a.close();
  });

  const types = (app: TestApp, authorization: string) => app.client.get('api/v3/types', { headers: { authorization } });

  it('serves a verified pair without a lookup, refuses any other password, and forgets everything on every process when provisioning says so', async () => {
    const { user, password } = await makeApiUser(a.rt.orm.em.fork());
    const auth = basic(user.username, password);
    expect((await types(a, auth)).statusCode).to.equal(200);
    expect((await types(b, auth)).statusCode).to.equal(200);
    await a.rt.orm.em.fork().execute(`update api_user set status = 'INACTIVO' where id = ?`, [user.id]);
    // cached on both processes: the row is not read again
    expect((await types(a, auth)).statusCode).to.equal(200);
    expect((await types(b, auth)).statusCode).to.equal(200);
    expect((await types(a, basic(user.username, `${password}x`))).statusCode, 'a cached pair lets no other password in').to.equal(401);
    await publishAuthInvalidation(a.rt.redis, a.rt.config.queuePrefix);
    for (const app of [a, b]) {
      const res = await waitFor(async () => {
        const r = await types(app, auth);
        return r.statusCode === 403 ? r : null;
      });
      expect(res.body).to.include({ message: "El estado del usuario de API es 'INACTIVO'." });
    }
  });

  it('a hit is the verified user itself: no EntityManager is forked, a wrong password still is looked up and refused', async () => {
    const cache = new CredentialCache(60_000);
    const { user, password } = await makeApiUser(a.rt.orm.em.fork(), { apiKey: 'key-cache-test-0100', endpoints: ['*'] });
    let forks = 0;
    const em = () => {
      forks++;
      return a.rt.orm.em.fork() as EntityManager;
    };
    const first = await authenticateBasic(em, basic(user.username, password), '/oferta', undefined, cache);
    expect(forks, 'a miss looks up').to.equal(1);
    const again = await authenticateBasic(em, basic(user.username, password), '/oferta', undefined, cache);
    expect(forks, 'a hit forks nothing').to.equal(1);
    expect(again, 'the same verified user').to.equal(first);
    const wrong = await authenticateBasic(em, basic(user.username, `${password}x`), '/oferta', undefined, cache).catch((err: { status?: number }) => err);
    expect((wrong as { status?: number }).status).to.equal(401);
    expect(forks, 'another password is not a hit').to.equal(2);
    const byKey = await authenticateApiKey(em, 'key-cache-test-0100', '/aceptacion', undefined, cache);
    expect(await authenticateApiKey(em, 'key-cache-test-0100', '/aceptacion', undefined, cache)).to.equal(byKey);
    expect(forks, 'the key looked up once').to.equal(3);
  });

  it('routes that write take a cached generator as a looked-up one: two offers on one verified pair', async () => {
    await makeServiceType(a.rt.orm.em.fork(), { id: 1 });
    const gen = await makeGenerator(a.rt.orm.em.fork());
    const bodies = [offerBody(), offerBody()];
    for (const json of bodies) {
      const res = await a.client.post('api/v3/oferta', { headers: gen.headers, json });
      expect(res.statusCode, JSON.stringify(res.body)).to.equal(200);
    }
    const stored = await a.rt.orm.em.fork().find(Offer, { uuid: { $in: bodies.map((b) => String(b.uuid)) } });
    expect(stored.map((o) => o.generator.id)).to.deep.equal([gen.user.id, gen.user.id]);
  });

  it('an API key: trusted for the TTL, then the row is read again (a key changed in the database stops working)', async () => {
    const short = await startApp({ env: { AUTH_CACHE_TTL_MS: '300' } });
    try {
      const { user } = await makeApiUser(short.rt.orm.em.fork(), { apiKey: 'key-cache-test-0001', endpoints: ['*'] });
      const progress = () => short.client.put('api/v3/estado-servicio', { headers: { 'x-apikey': 'key-cache-test-0001' }, json: {} });
      expect((await progress()).statusCode, 'authenticated: the body is what is wrong').to.equal(400);
      await short.rt.orm.em.fork().execute(`update api_user set api_key_hash = ? where id = ?`, [apiKeyHash('key-cache-test-0002'), user.id]);
      const refused = await waitFor(async () => {
        const r = await progress();
        return r.statusCode === 401 ? r : null;
      }, 5000);
      expect(refused.body).to.include({ status: false, msg: 'La clave de acceso no es correcta.' });
    } finally {
      await short.close();
    }
  });
});
