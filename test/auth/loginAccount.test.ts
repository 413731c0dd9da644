/**
 * Operator login beyond the per-address limit (issue 29.5, D24, D21): a limit
 * per account, a cap on concurrent argon2 checks (LIM-4), and logins that
 * fail closed while Redis is away while the API credentials fail open.
 */
import { expect } from 'chai';
import argon2 from 'argon2';
import { randomBytes } from 'node:crypto';
import { LOGIN_MESSAGES } from '../../src/api/operators/login.js';
import { GateFull, hashGate } from '../../src/auth/hashGate.js';
import { ADMIN_LOGIN_MESSAGES } from '../../src/http/routes/adminLogin.js';
import { expectIsoTimestamp } from '../helpers/envelopes.js';
import { makeApiUser, makeOperator } from '../helpers/factories.js';
import { basic, startApp, type TestApp } from '../helpers/harness.js';
import { freePort } from '../helpers/ports.js';
import { stubMethod } from '../helpers/stub.js';
import { waitFor } from '../helpers/wait.js';
import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';

const prefix = () => `${process.env.QUEUE_PREFIX}_la${randomBytes(3).toString('hex')}`;

/** A promise and its resolver. */
function latch(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('operator login: per account, hash cap, Redis away (issue 29.5, D21)', function () {
  this.timeout(60000);
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('failed attempts for one username from many addresses lock that account (429, even the right password); others are not affected', async () => {
    app = await startApp({ env: { QUEUE_PREFIX: prefix(), TRUST_PROXY: 'true', LOGIN_RATE_LIMIT: '100', LOGIN_ACCOUNT_LIMIT: '3' } });
    const { operator, password } = await makeOperator(app.rt.orm.em.fork());
    const { operator: other, password: otherPw } = await makeOperator(app.rt.orm.em.fork());
    const login = (username: string, pw: string, ip: string) =>
      app!.client.post('api/v3/users/login', { json: { username, password: pw }, headers: { 'x-forwarded-for': ip } });
    for (let i = 1; i <= 3; i++) expect((await login(operator.username, 'wrong', `203.0.113.${i}`)).statusCode, `attempt ${i}`).to.equal(401);
    const res = await login(operator.username, password, '198.51.100.50');
    expect(res.statusCode).to.equal(429);
    const body = res.body as unknown as Record<string, unknown>;
    expect(body).to.include({ error: LOGIN_MESSAGES.rateLimited, message: LOGIN_MESSAGES.accountLimited(3), retryAfter: 900 });
    expectIsoTimestamp(body.timestamp);
    expect(Number(res.headers['retry-after'])).to.be.within(1, 900);
    const form = await app.client.post('admin/login', { form: { username: operator.username, password }, responseType: 'text', headers: { 'x-forwarded-for': '198.51.100.51' } });
    expect(form.statusCode).to.equal(429);
    expect(form.body).to.include(ADMIN_LOGIN_MESSAGES.tooMany);
    expect((await login(other.username, otherPw, '198.51.100.50')).statusCode).to.equal(200);
  });

  it('a success does not count against the account', async () => {
    app = await startApp({ env: { QUEUE_PREFIX: prefix(), LOGIN_RATE_LIMIT: '100', LOGIN_ACCOUNT_LIMIT: '2' } });
    const { operator, password } = await makeOperator(app.rt.orm.em.fork());
    for (let i = 0; i < 3; i++) expect((await app.client.post('api/v3/users/login', { json: { username: operator.username, password } })).statusCode).to.equal(200);
    expect((await app.client.post('api/v3/users/login', { json: { username: operator.username, password: 'x' } })).statusCode).to.equal(401);
    expect((await app.client.post('api/v3/users/login', { json: { username: operator.username, password } })).statusCode).to.equal(200);
  });

  it('argon2 checks beyond LOGIN_HASH_CONCURRENCY and its queue answer 503 in the login envelope with Retry-After', async () => {
    app = await startApp({ env: { QUEUE_PREFIX: prefix(), LOGIN_RATE_LIMIT: '100', LOGIN_HASH_CONCURRENCY: '1', LOGIN_HASH_QUEUE: '0' } });
    const { operator, password } = await makeOperator(app.rt.orm.em.fork());
    const hold = latch();
    let started = 0;
    const verify = argon2.verify.bind(argon2);
    const restore = stubMethod(argon2, 'verify', (async (...args: Parameters<typeof argon2.verify>) => {
      started++;
      await hold.promise;
      return verify(...args);
    }) as typeof argon2.verify);
    try {
      const first = app.client.post('api/v3/users/login', { json: { username: operator.username, password } });
      await waitFor(() => started === 1, { timeoutMs: 10000, intervalMs: 10, what: 'the first check running' });
      const second = await app.client.post('api/v3/users/login', { json: { username: operator.username, password } });
      expect(second.statusCode).to.equal(503);
      expect(second.body).to.deep.equal({ status: false, msg: LOGIN_MESSAGES.unavailable });
      expect(Number(second.headers['retry-after'])).to.be.greaterThan(0);
      expect(started, 'the refused login ran no hash').to.equal(1);
      hold.open();
      expect((await first).statusCode).to.equal(200);
      // the slot is free again
      expect((await app.client.post('api/v3/users/login', { json: { username: operator.username, password } })).statusCode).to.equal(200);
    } finally {
      hold.open();
      restore();
    }
  });

  it('Redis away (D21): logins fail closed (503), API credentials fail open (the right one passes, a wrong one is 401)', async () => {
    app = await startApp({ env: { REDIS_URL: `redis://127.0.0.1:${await freePort()}` } });
    const { user, password } = await makeApiUser(app.rt.orm.em.fork());
    const login = await app.client.post('api/v3/users/login', { json: { username: 'nobody', password: 'x' }, timeout: { request: 5000 } });
    expect(login.statusCode).to.equal(503);
    expect(login.body).to.deep.equal({ status: false, msg: LOGIN_MESSAGES.unavailable });
    expect((await app.client.get('api/v3/types', { headers: { authorization: basic(user.username, password) } })).statusCode).to.equal(200);
    expect((await app.client.get('api/v3/types', { headers: { authorization: basic(user.username, 'wrong') } })).statusCode).to.equal(401);
  });
});

describe('Redis going away mid-life (D21)', function () {
  this.timeout(60000);

  it('a throwaway redis-server killed under a running API: logins answer 503, API credentials keep working', async () => {
    const port = await freePort();
    const server = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
    let app: TestApp | undefined;
    try {
      const probe = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
      await waitFor(async () => (await probe.ping().catch(() => null)) === 'PONG', { timeoutMs: 10000, what: 'the throwaway redis-server' });
      probe.disconnect();
      app = await startApp({ env: { REDIS_URL: `redis://127.0.0.1:${port}`, QUEUE_PREFIX: prefix() } });
      const { user, password } = await makeApiUser(app.rt.orm.em.fork());
      const login = () => app!.client.post('api/v3/users/login', { json: { username: 'nobody', password: 'x' }, timeout: { request: 8000 } });
      expect((await login()).statusCode).to.equal(401);
      server.kill('SIGKILL');
      await exited;
      await waitFor(() => app!.rt.redis.status !== 'ready', { timeoutMs: 10000, what: 'the runtime to see Redis gone' });
      const refused = await login();
      expect(refused.statusCode).to.equal(503);
      expect(refused.body).to.deep.equal({ status: false, msg: LOGIN_MESSAGES.unavailable });
      expect((await app.client.get('api/v3/types', { headers: { authorization: basic(user.username, password) } })).statusCode).to.equal(200);
      expect((await app.client.get('api/v3/types', { headers: { authorization: basic(user.username, 'wrong') } })).statusCode).to.equal(401);
    } finally {
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
      await app?.close();
    }
  });
});

describe('the hash gate (LIM-4)', () => {
  it('runs at most `concurrency` at once, queues up to `queue`, refuses beyond at once', async () => {
    const gate = hashGate(1, 1, 10000);
    const a = latch();
    const order: string[] = [];
    const first = gate.run(async () => {
      order.push('a');
      await a.promise;
    });
    const second = gate.run(async () => void order.push('b'));
    expect(gate.running).to.equal(1);
    expect(gate.waiting).to.equal(1);
    let refused: unknown;
    await gate.run(async () => undefined).catch((err: unknown) => (refused = err));
    expect(refused).to.be.instanceOf(GateFull);
    expect(order).to.deep.equal(['a']);
    a.open();
    await Promise.all([first, second]);
    expect(order).to.deep.equal(['a', 'b']);
    expect(gate.running).to.equal(0);
  });

  it('a waiter whose wait runs out is refused and leaves the queue', async () => {
    const gate = hashGate(1, 4, 20);
    const a = latch();
    const first = gate.run(() => a.promise);
    let refused: unknown;
    await gate.run(async () => undefined).catch((err: unknown) => (refused = err));
    expect(refused).to.be.instanceOf(GateFull);
    expect(gate.waiting).to.equal(0);
    a.open();
    await first;
    expect(await gate.run(async () => 'ran')).to.equal('ran');
  });
});
