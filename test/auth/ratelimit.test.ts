import { expect } from 'chai';
import type { Response } from 'got';
import { randomBytes } from 'node:crypto';
import { ADMIN_LOGIN_MESSAGES } from '../../src/http/routes/adminLogin.js';
import { LOGIN_MESSAGES } from '../../src/api/operators/login.js';
import { expectIsoTimestamp } from '../helpers/envelopes.js';
import { makeOperator } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { freePort } from '../helpers/ports.js';

/** Apps sharing a Redis prefix of their own, so no other test's logins count here; the spec's limit of 5. */
async function apps(n: number, env: Record<string, string> = {}): Promise<TestApp[]> {
  const prefix = `${process.env.QUEUE_PREFIX}_rl${randomBytes(3).toString('hex')}`;
  const started: TestApp[] = [];
  for (let i = 0; i < n; i++) started.push(await startApp({ env: { QUEUE_PREFIX: prefix, LOGIN_RATE_LIMIT: '5', ...env } }));
  return started;
}

function rateHeaders(res: Response<unknown>) {
  return {
    limit: res.headers['x-ratelimit-limit'],
    remaining: res.headers['x-ratelimit-remaining'],
    reset: Number(res.headers['x-ratelimit-reset']),
  };
}

describe('login rate limit (spec 8)', () => {
  let running: TestApp[] = [];
  afterEach(async () => {
    await Promise.all(running.map((a) => a.close()));
    running = [];
  });

  it('the 6th attempt in the window answers 429 with the exact body and headers, counted across two API processes', async () => {
    running = await apps(2);
    const bad = { username: 'nobody', password: 'wrong' };
    for (let i = 1; i <= 5; i++) {
      const res = await running[i % 2].client.post('api/v3/users/login', { json: bad });
      expect(res.statusCode, `attempt ${i}`).to.equal(401);
      const h = rateHeaders(res);
      expect(h.limit).to.equal('5');
      expect(h.remaining).to.equal(String(5 - i));
      // Unix seconds at which the 900 s window that began with the first attempt ends.
      expect(h.reset).to.be.within(Math.floor(Date.now() / 1000) + 800, Math.ceil(Date.now() / 1000) + 901);
    }
    const res = await running[0].client.post('api/v3/users/login', { json: bad });
    expect(res.statusCode).to.equal(429);
    const body = res.body as unknown as Record<string, unknown>;
    expect(body).to.have.keys('error', 'message', 'retryAfter', 'timestamp');
    expect(body).to.include({ error: 'Demasiadas solicitudes', message: 'Límite de 5 solicitudes excedido', retryAfter: 900 });
    expectIsoTimestamp(body.timestamp);
    expect(rateHeaders(res)).to.include({ limit: '5', remaining: '0' });
    expect(Number(res.headers['retry-after'])).to.be.within(1, 900);
  });

  it('counts failures on the login form too, and refuses good credentials once the limit is spent', async () => {
    running = await apps(1);
    const [app] = running;
    const { operator, password } = await makeOperator(app.rt.orm.em.fork());
    for (let i = 1; i <= 5; i++) {
      const res = await app.client.post('admin/login', { form: { username: operator.username, password: 'wrong' }, responseType: 'text' });
      expect(res.statusCode, `attempt ${i}`).to.equal(401);
    }
    const form = await app.client.post('admin/login', { form: { username: operator.username, password }, responseType: 'text' });
    expect(form.statusCode).to.equal(429);
    expect(form.body).to.include(ADMIN_LOGIN_MESSAGES.tooMany);
    expect(rateHeaders(form)).to.include({ limit: '5', remaining: '0' });
    const api = await app.client.post('api/v3/users/login', { json: { username: operator.username, password } });
    expect(api.statusCode).to.equal(429);
  });

  it('is kept per client IP (behind a trusted proxy, the forwarded one)', async () => {
    running = await apps(1, { TRUST_PROXY: 'true' });
    const [app] = running;
    const attempt = (ip: string) =>
      app.client.post('api/v3/users/login', { json: { username: 'nobody', password: 'x' }, headers: { 'x-forwarded-for': ip } });
    for (let i = 0; i < 6; i++) await attempt('203.0.113.7');
    expect((await attempt('203.0.113.7')).statusCode).to.equal(429);
    const other = await attempt('198.51.100.20');
    expect(other.statusCode).to.equal(401);
    expect(rateHeaders(other).remaining).to.equal('4');
  });

  it('fails closed when Redis cannot be reached (D21): 503 in the login envelope with Retry-After, within a few seconds', async () => {
    running = [await startApp({ env: { REDIS_URL: `redis://127.0.0.1:${await freePort()}` } })];
    const res = await running[0].client.post('api/v3/users/login', {
      json: { username: 'nobody', password: 'x' },
      timeout: { request: 5000 },
    });
    expect(res.statusCode).to.equal(503);
    expect(res.body).to.deep.equal({ status: false, msg: LOGIN_MESSAGES.unavailable });
    expect(Number(res.headers['retry-after'])).to.be.greaterThan(0);
    const form = await running[0].client.post('admin/login', { form: { username: 'nobody', password: 'x' }, responseType: 'text', timeout: { request: 5000 } });
    expect(form.statusCode).to.equal(503);
    expect(form.body).to.include(ADMIN_LOGIN_MESSAGES.unavailable);
  });
});
