/**
 * Issue 8.1: no request, upgrade or socket message ends the process. Malformed upgrade targets and
 * requests Node's parser refuses are sent over raw TCP to a spawned API process; each gets a 4xx in
 * the system envelope and /health stays 200.
 */
import { expect } from 'chai';
import { rawConnection, parseResponse } from '../helpers/raw.js';
import { spawnApi, type ApiProcess } from '../helpers/process.js';
import { ERROR_ID } from '../helpers/envelopes.js';

/** Sends `text` on a new connection and resolves with everything received once the server closes it. */
async function exchange(port: number, text: string): Promise<string> {
  const { socket, received } = rawConnection(port);
  socket.on('error', () => undefined);
  socket.write(text);
  return received.catch(() => '');
}

const upgrade = (target: string) =>
  `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
  'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n';

describe('hardening: no request ends the process (issue 8.1)', function () {
  this.timeout(60000);
  let api: ApiProcess;

  before(async () => {
    api = await spawnApi();
  });
  after(async () => {
    await api?.stop();
  });

  it('an upgrade whose absolute target does not parse (GET http://[/v3) is answered 400 and the process keeps serving', async () => {
    const raw = await exchange(api.port, upgrade('http://[/v3'));
    const res = parseResponse(raw);
    expect(res.statusCode).to.equal(400);
    const body = JSON.parse(res.body) as Record<string, unknown>;
    expect(body.error).to.equal(true);
    expect(body.errorId).to.match(ERROR_ID);
    expect(await api.health()).to.equal(200);
  });

  for (const target of ['//', 'http://x:99999/v3', `/v3?${'a'.repeat(12000)}`, `/${'v'.repeat(12000)}`, '/v3%', '/%zz', '/v3%00', '/v3%ED%A0%80', 'http://[::1/v3', 'http://user:@/v3', '*', 'http:/v3', '/v3#frag']) {
    it(`an upgrade to ${JSON.stringify(target.slice(0, 40))} gets a 4xx and /health stays 200`, async () => {
      const res = parseResponse(await exchange(api.port, upgrade(target)));
      expect(res.statusCode).to.be.within(400, 499);
      expect(await api.health()).to.equal(200);
    });
  }

  for (const [name, text] of [
    ['a request line that does not parse', 'GET http://[/v3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
    ['garbage', '\u0000\u0001\u0002 nonsense\r\n\r\n'],
    ['a wrong content-length', 'POST /api/v3/oferta HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}'],
    ['two content-lengths', 'POST /api/v3/oferta HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}'],
    ['a bad chunk', 'POST /api/v3/oferta HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'],
    ['headers too large', `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20000)}\r\n\r\n`],
  ] as const) {
    it(`${name} is answered in the system envelope and /health stays 200`, async () => {
      const res = parseResponse(await exchange(api.port, text));
      expect(res.statusCode).to.be.within(400, 499);
      expect((JSON.parse(res.body) as Record<string, unknown>).error).to.equal(true);
      expect(await api.health()).to.equal(200);
    });
  }

  it('logged no unexpected error and is still running', async () => {
    expect(await api.health()).to.equal(200);
    expect(api.proc.stdout()).not.to.contain('"level":50');
  });
});
