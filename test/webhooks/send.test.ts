import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendWebhook } from '../../src/webhooks/send.js';

describe('sendWebhook', () => {
  let server: Server;
  let url: string;
  let written = 0;

  before(async () => {
    // A peer that answers 200 with a 50 MB body, a chunk at a time.
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = () => {
        while (written < 50 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reads at most 64 KB of a reply and stops reading the rest', async () => {
    const out = await sendWebhook({ url, body: { id: 'x' } }, 5000);
    expect(out).to.include({ ok: true, statusCode: 200, error: null });
    expect(out.replyBody).to.have.length(64 * 1024);
    await new Promise((resolve) => setImmediate(resolve));
    expect(written, 'bytes the peer could push before we stopped reading').to.be.below(50 * 1024 * 1024);
  });

  it('records a refused connection as an error, not a reply', async () => {
    const out = await sendWebhook({ url: 'http://127.0.0.1:1/hook', body: {} }, 2000);
    expect(out).to.include({ ok: false, statusCode: null, replyBody: null });
    expect(out.error).to.match(/ECONNREFUSED/);
  });
});
