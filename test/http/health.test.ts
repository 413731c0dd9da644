import { expect } from 'chai';
import { expectIsoTimestamp, type Body } from '../helpers/envelopes.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { freePort } from '../helpers/ports.js';
import { VERSION } from '../../src/version.js';
import { dropDatabase, ensureDatabase } from '../../src/db/database.js';

/** GET /health with a bound: a hanging health check fails the test instead of stalling it. */
async function health(app: TestApp, path = 'health') {
  const res = await app.client.get(path, { timeout: { request: 8000 } });
  return { statusCode: res.statusCode, body: res.body as unknown as Body };
}

describe('GET /health', () => {
  // The suite runs with the credential cache off (test/setup.ts); production has it on, and its invalidation
  // subscriber must not hold the start up while Redis is away.
  for (const cache of ['0', '5000']) {
    it(`answers 503 within a few seconds when Redis is unreachable (AUTH_CACHE_TTL_MS=${cache})`, async () => {
      const app = await startApp({ env: { REDIS_URL: `redis://127.0.0.1:${await freePort()}`, AUTH_CACHE_TTL_MS: cache } });
      try {
        const res = await health(app);
        expect(res.statusCode).to.equal(503);
        expect(res.body).to.include({ status: 'unavailable', postgres: 'ok', redis: 'down' });
        expectIsoTimestamp(res.body.timestamp);
      } finally {
        await app.close();
      }
    });
  }

  it('answers 503 when PostgreSQL is unreachable', async () => {
    const app = await startApp({ env: { DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/broker` } });
    try {
      const res = await health(app);
      expect(res.statusCode).to.equal(503);
      expect(res.body).to.include({ status: 'unavailable', postgres: 'down', redis: 'ok' });
    } finally {
      await app.close();
    }
  });
});

describe('GET /health/live and /health/ready (D21)', () => {
  it('ready: 200 with nothing missing while PostgreSQL and Redis answer and the migrations are applied; live: 200 with the version', async () => {
    const app = await startApp();
    try {
      const ready = await health(app, 'health/ready');
      expect(ready.statusCode).to.equal(200);
      expect(ready.body).to.deep.equal({ status: 'ok', version: VERSION, missing: [], postgres: 'ok', redis: 'ok', migrations: 'ok' });
      const live = await health(app, 'health/live');
      expect(live.statusCode).to.equal(200);
      expect(live.body).to.include({ status: 'ok', version: VERSION });
      expect(VERSION).to.match(/^\d+\.\d+\.\d+/);
    } finally {
      await app.close();
    }
  });

  it('Redis away: ready answers 503 naming redis within a few seconds, live still 200', async () => {
    const app = await startApp({ env: { REDIS_URL: `redis://127.0.0.1:${await freePort()}` } });
    try {
      const ready = await health(app, 'health/ready');
      expect(ready.statusCode).to.equal(503);
      expect(ready.body).to.include({ status: 'unavailable', postgres: 'ok', redis: 'down', migrations: 'ok' });
      expect(ready.body.missing).to.deep.equal(['redis']);
      expect((await health(app, 'health/live')).statusCode).to.equal(200);
    } finally {
      await app.close();
    }
  });

  it('PostgreSQL away: ready answers 503 naming postgres and the migrations it cannot read; live still 200', async () => {
    const app = await startApp({ env: { DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/broker` } });
    try {
      const ready = await health(app, 'health/ready');
      expect(ready.statusCode).to.equal(503);
      expect(ready.body).to.include({ status: 'unavailable', postgres: 'down', redis: 'ok', migrations: 'unknown', version: VERSION });
      expect(ready.body.missing).to.deep.equal(['postgres', 'migrations']);
      expect((await health(app, 'health/live')).statusCode).to.equal(200);
    } finally {
      await app.close();
    }
  });

  it('a database whose migrations are not applied is not ready', async () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `${url.pathname}_unmigrated`;
    await ensureDatabase(url.toString());
    const app = await startApp({ env: { DATABASE_URL: url.toString() } });
    try {
      const ready = await health(app, 'health/ready');
      expect(ready.statusCode).to.equal(503);
      expect(ready.body).to.include({ postgres: 'ok', redis: 'ok', migrations: 'pending' });
      expect(ready.body.missing).to.deep.equal(['migrations']);
    } finally {
      await app.close();
      await dropDatabase(url.toString());
    }
  });
});
