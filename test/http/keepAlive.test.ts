/**
 * EDGE-15: an idle keep-alive connection is closed by the API only after KEEP_ALIVE_TIMEOUT_MS (61 s by default,
 * above the 60 s idle timeout of common proxies and clients), so that they close it first. With Node's 5 s the
 * server closed first, and a request sent on the connection at that moment met a reset (ECONNRESET): one did in a
 * step of `npm run bench:auction`'s sustained rate.
 */
import { expect } from 'chai';
import { startApp, type TestApp } from '../helpers/harness.js';
import { parseResponse, rawConnection } from '../helpers/raw.js';

/** One GET /health on a raw keep-alive connection: the answer, when it arrived, and when the server closed the connection. */
async function idleAfterOneRequest(port: number) {
  const conn = rawConnection(port);
  conn.socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
  const answeredAt = await new Promise<number>((resolve) => conn.socket.once('data', () => resolve(Date.now())));
  return { answeredAt, answer: () => parseResponse(conn.data()), closed: conn.received.then(() => Date.now()), socket: conn.socket };
}

describe('keep-alive connections outlive the clients\' idle timeouts (EDGE-15)', () => {
  describe('by default', () => {
    let app: TestApp;
    before(async () => {
      app = await startApp();
    });
    after(async () => app.close());

    it('keeps an idle connection 61 s and says so in Keep-Alive', async () => {
      expect(app.http.server.keepAliveTimeout).to.equal(61_000);
      const c = await idleAfterOneRequest(app.http.port);
      const res = c.answer();
      expect(res.statusCode).to.equal(200);
      expect(res.headers['keep-alive']).to.equal('timeout=61');
      expect(res.headers.connection).to.equal('keep-alive');
      c.socket.destroy();
    });
  });

  describe('KEEP_ALIVE_TIMEOUT_MS', () => {
    const MS = 1500;
    let app: TestApp;
    before(async () => {
      app = await startApp({ env: { KEEP_ALIVE_TIMEOUT_MS: String(MS) } });
    });
    after(async () => app.close());

    it('is what closes an idle connection, and not before it', async () => {
      const c = await idleAfterOneRequest(app.http.port);
      expect(c.answer().headers['keep-alive']).to.equal(`timeout=${Math.floor(MS / 1000)}`);
      const closedAt = await c.closed;
      // Node closes an idle connection on a timer of this length (give or take its timer's granularity)
      expect(closedAt - c.answeredAt, 'ms from the answer to the close').to.be.at.least(MS - 100);
    });
  });
});
