/**
 * Failed authentications are limited (D19): per client IP and per username or
 * key, across API processes, 429 in the failing scheme's envelope with
 * Retry-After and X-RateLimit-*; successes do not count; a client IP that
 * authenticated as a tenant in the window is not locked out by failures from
 * elsewhere.
 */
import { expect } from 'chai';
import got, { type Response } from 'got';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AUTH_MESSAGES } from '../../src/http/auth/index.js';
import { AUTH_FAIL_MESSAGE } from '../../src/auth/failLimit.js';
import { expectKeyEnvelope, expectSystemEnvelope } from '../helpers/envelopes.js';
import { makeApiUser } from '../helpers/factories.js';
import { basic, startApp, type TestApp } from '../helpers/harness.js';
import { freePort } from '../helpers/ports.js';
import { refusal, wsUrl } from '../helpers/sockets.js';
import { spawnEntry, type Spawned } from '../helpers/spawn.js';
import { waitFor } from '../helpers/wait.js';

/** A Redis prefix of this test's own, so no other test's failures count. */
const limits = (o: Record<string, string>) => ({
  QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_af${randomBytes(3).toString('hex')}`,
  AUTH_FAIL_LIMIT_IP: '1000',
  AUTH_FAIL_LIMIT_ID: '1000',
  ...o,
});

function rateHeaders(res: Pick<Response<unknown>, 'headers'>) {
  return { limit: res.headers['x-ratelimit-limit'], remaining: res.headers['x-ratelimit-remaining'] };
}

function expectRetryHeaders(headers: Response<unknown>['headers'] | IncomingMessage['headers'], windowS: number) {
  const retry = Number(headers['retry-after']);
  expect(retry).to.be.within(1, windowS);
  const reset = Number(headers['x-ratelimit-reset']);
  expect(reset).to.be.within(Math.floor(Date.now() / 1000), Math.ceil(Date.now() / 1000) + windowS + 1);
}

/** The HTTP answer to a refused socket upgrade (test/helpers/sockets.ts). */
const upgradeRefusal = (url: string, headers: Record<string, string>) => refusal(url, { headers });

describe('failed authentications are limited (D19)', function () {
  this.timeout(60000);
  let running: TestApp[] = [];
  let proc: Spawned | undefined;
  afterEach(async () => {
    await Promise.all(running.map((a) => a.close()));
    running = [];
    if (proc && proc.child.exitCode === null) {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
    proc = undefined;
  });

  it('Basic: the limit per username holds across two API processes; then 429 in the system envelope, even with the right password', async () => {
    const env = limits({ AUTH_FAIL_LIMIT_ID: '3', AUTH_FAIL_WINDOW_S: '600' });
    running = [await startApp({ env })];
    const [app] = running;
    const port = await freePort();
    const p = (proc = spawnEntry('dist/src/main/web.js', { ...env, PORT: String(port), LOG_LEVEL: 'warn' }));
    const other = got.extend({ prefixUrl: `http://127.0.0.1:${port}`, throwHttpErrors: false, retry: { limit: 0 }, responseType: 'json' });
    await waitFor(
      async () => {
        if (p.child.exitCode !== null) throw new Error(`exited early: ${p.stderr()}`);
        return (await other.get('health').catch(() => null))?.statusCode === 200;
      },
      { timeoutMs: 30000, intervalMs: 100, what: 'the second API process' },
    );
    const { user, password } = await makeApiUser(app.rt.orm.em.fork());
    const clients = [app.client, other];
    const wrong = { authorization: basic(user.username, 'wrong') };

    for (let i = 1; i <= 3; i++) {
      const res = await clients[i % 2].get('api/v3/types', { headers: wrong });
      expect(res.statusCode, `failure ${i}`).to.equal(401);
      expectSystemEnvelope(res.body, AUTH_MESSAGES.basicInvalid);
      expect(rateHeaders(res), `failure ${i}`).to.deep.equal({ limit: '3', remaining: String(3 - i) });
    }
    for (const [i, client] of clients.entries()) {
      const res = await client.get('api/v3/types', { headers: wrong });
      expect(res.statusCode, `process ${i}`).to.equal(429);
      expectSystemEnvelope(res.body, AUTH_FAIL_MESSAGE);
      expect(rateHeaders(res)).to.deep.equal({ limit: '3', remaining: '0' });
      expectRetryHeaders(res.headers, 600);
    }
    // This client IP never authenticated as the user in the window: the right password is blocked too.
    const right = await other.get('api/v3/types', { headers: { authorization: basic(user.username, password) } });
    expect(right.statusCode).to.equal(429);
    expectSystemEnvelope(right.body, AUTH_FAIL_MESSAGE);
    // Another username from the same IP is not affected.
    const { user: u2, password: p2 } = await makeApiUser(app.rt.orm.em.fork());
    expect((await app.client.get('api/v3/types', { headers: { authorization: basic(u2.username, p2) } })).statusCode).to.equal(200);
  });

  it('a success does not count', async () => {
    running = [await startApp({ env: limits({ AUTH_FAIL_LIMIT_ID: '2' }) })];
    const [app] = running;
    const { user, password } = await makeApiUser(app.rt.orm.em.fork());
    const good = { authorization: basic(user.username, password) };
    for (let i = 0; i < 5; i++) expect((await app.client.get('api/v3/types', { headers: good })).statusCode).to.equal(200);
    const first = await app.client.get('api/v3/types', { headers: { authorization: basic(user.username, 'x') } });
    expect(first.statusCode).to.equal(401);
    expect(rateHeaders(first)).to.deep.equal({ limit: '2', remaining: '1' });
  });

  it('a client IP that authenticated as the tenant is not locked out by failures from another IP; the other IP is', async () => {
    running = [await startApp({ env: limits({ AUTH_FAIL_LIMIT_ID: '3', TRUST_PROXY: 'true' }) })];
    const [app] = running;
    const { user, password } = await makeApiUser(app.rt.orm.em.fork());
    const as = (ip: string, pw: string) =>
      app.client.get('api/v3/types', { headers: { authorization: basic(user.username, pw), 'x-forwarded-for': ip } });
    const tenant = '198.51.100.10';
    const attacker = '203.0.113.66';
    expect((await as(tenant, password)).statusCode).to.equal(200);
    for (let i = 0; i < 3; i++) expect((await as(attacker, 'guess')).statusCode).to.equal(401);
    expect((await as(attacker, password)).statusCode).to.equal(429);
    expect((await as('192.0.2.1', password)).statusCode).to.equal(429);
    expect((await as(tenant, password)).statusCode).to.equal(200);
  });

  it('API key: over the limit per client IP a wrong key answers 429 in the key envelope, the right key still passes (D24); another IP still gets 401', async () => {
    running = [await startApp({ env: limits({ AUTH_FAIL_LIMIT_IP: '3', TRUST_PROXY: 'true', AUTH_FAIL_WINDOW_S: '300' }) })];
    const [app] = running;
    const apiKey = `key-${randomBytes(8).toString('hex')}`;
    await makeApiUser(app.rt.orm.em.fork(), { apiKey });
    const put = (ip: string, key: string) =>
      app.client.put('api/v3/posicion-tecnico', { headers: { 'x-apikey': key, 'x-forwarded-for': ip }, json: {} });
    for (let i = 1; i <= 3; i++) {
      const res = await put('203.0.113.9', `guess-${i}`);
      expect(res.statusCode).to.equal(401);
      expectKeyEnvelope(res.body, AUTH_MESSAGES.keyInvalid);
      expect(rateHeaders(res)).to.deep.equal({ limit: '3', remaining: String(3 - i) });
    }
    const res = await put('203.0.113.9', 'guess-4');
    expect(res.statusCode).to.equal(429);
    expectKeyEnvelope(res.body, AUTH_FAIL_MESSAGE);
    expect(rateHeaders(res)).to.deep.equal({ limit: '3', remaining: '0' });
    expectRetryHeaders(res.headers, 300);
    // The right key is past authentication: the route's own answer to the empty body.
    const right = await put('203.0.113.9', apiKey);
    expect(right.statusCode).to.equal(400);
    expect((await put('203.0.113.10', 'guess-5')).statusCode).to.equal(401);
  });

  it('socket upgrade: Basic failures count with the HTTP ones and the upgrade is answered 429 with the headers', async () => {
    running = [await startApp({ env: limits({ AUTH_FAIL_LIMIT_ID: '2' }) })];
    const [app] = running;
    const { user } = await makeApiUser(app.rt.orm.em.fork(), { endpoints: ['/oferta'] });
    const wrong = { authorization: basic(user.username, 'wrong') };
    const first = await upgradeRefusal(wsUrl(app.url), wrong);
    expect(first.status).to.equal(401);
    expect((await app.client.get('api/v3/types', { headers: wrong })).statusCode).to.equal(401);
    const refused = await upgradeRefusal(wsUrl(app.url), wrong);
    expect(refused.status).to.equal(429);
    expectSystemEnvelope(refused.body, AUTH_FAIL_MESSAGE);
    expect(rateHeaders(refused)).to.deep.equal({ limit: '2', remaining: '0' });
    expectRetryHeaders(refused.headers, 900);
  });
});
