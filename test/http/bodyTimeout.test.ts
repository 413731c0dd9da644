/**
 * Issue 29.9: a request whose body never finishes gets its 408 at
 * REQUEST_TIMEOUT_MS; the drain of an unread body (issue 8.5) must not hold it
 * for seconds more. Not a benchmark: the bound is three times the timeout,
 * against the five seconds of the drain it used to wait for.
 */
import { expect } from 'chai';
import { MESSAGES } from '../../src/envelopes.js';
import { expectSystemEnvelope } from '../helpers/envelopes.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { parseResponse, rawConnection } from '../helpers/raw.js';

const TIMEOUT_MS = 300;

describe('the 408 of an unfinished body comes at the timeout (issue 29.9)', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({ env: { REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) } });
  });
  after(async () => app.close());

  for (const [what, head] of [
    ['a declared length', 'Content-Length: 100\r\n\r\n{"user'],
    ['a chunked body', 'Transfer-Encoding: chunked\r\n\r\n5\r\n{"use\r\n'],
  ] as const) {
    it(`${what}: the 408 arrives before three times REQUEST_TIMEOUT_MS, then the connection closes`, async () => {
      const conn = rawConnection(app.http.port);
      const started = Date.now();
      conn.socket.write(`POST /api/v3/users/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${head}`);
      // the first bytes of the answer: an event, not a poll
      const firstBytes = await new Promise<number>((resolve) => conn.socket.once('data', () => resolve(Date.now())));
      expect(firstBytes - started, 'ms until the 408').to.be.below(3 * TIMEOUT_MS);
      const res = parseResponse(await conn.received);
      expect(res.statusCode).to.equal(408);
      expect(res.headers.connection).to.equal('close');
      expectSystemEnvelope(JSON.parse(res.body), MESSAGES.timeout);
    });
  }
});
