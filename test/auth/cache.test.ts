/**
 * The credential cache (issue 12 item 5): a verified Basic pair or API key
 * costs no lookup for AUTH_CACHE_TTL_MS; a status change or a new key takes
 * effect within it on every process, and provisioning's invalidation empties
 * every process's cache at once.
 */
import { expect } from 'chai';
import { publishAuthInvalidation } from '../../src/auth/cache.js';
import { makeApiUser } from '../helpers/factories.js';
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

  it('an API key: trusted for the TTL, then the row is read again (a key changed in the database stops working)', async () => {
    const short = await startApp({ env: { AUTH_CACHE_TTL_MS: '300' } });
    try {
      const { user } = await makeApiUser(short.rt.orm.em.fork(), { apiKey: 'key-cache-test-0001', endpoints: ['*'] });
      const progress = () => short.client.put('api/v3/estado-servicio', { headers: { 'x-apikey': 'key-cache-test-0001' }, json: {} });
      expect((await progress()).statusCode, 'authenticated: the body is what is wrong').to.equal(400);
      await short.rt.orm.em.fork().execute(`update api_user set api_key = 'key-cache-test-0002' where id = ?`, [user.id]);
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
