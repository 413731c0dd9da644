import { expect } from 'chai';
import { expectIsoTimestamp, type Body } from '../helpers/envelopes.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { freePort } from '../helpers/ports.js';

/** GET /health with a bound: a hanging health check fails the test instead of stalling it. */
async function health(app: TestApp) {
  const res = await app.client.get('health', { timeout: { request: 8000 } });
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
