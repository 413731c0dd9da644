import type { EntityManager } from '@mikro-orm/postgresql';
import { expect } from 'chai';
import got from 'got';
import { MESSAGES } from '../../src/envelopes.js';
import { LOGIN_MESSAGES } from '../../src/http/routes/users.js';
import { resetDb } from '../helpers/db.js';
import { expectIsoTimestamp, expectSystemEnvelope, type Body } from '../helpers/envelopes.js';
import { makeApiUser, makeOperator } from '../helpers/factories.js';
import { startApp, basic, type TestApp } from '../helpers/harness.js';
import { parseResponse, rawConnection } from '../helpers/raw.js';
import { serveMini, type MiniApp } from '../helpers/miniApp.js';
import { stubMethod } from '../helpers/stub.js';
import { waitFor } from '../helpers/wait.js';

describe('HTTP edge: envelopes, redirects, limits', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
    await resetDb(app.rt.orm);
  });
  after(async () => app.close());

  describe('unknown routes (4.9, 7.3)', () => {
    it('a known path with another method is an unknown route', async () => {
      const res = await app.client.get('api/v3/users/login');
      expect(res.statusCode).to.equal(404);
      const body = res.body as unknown as Body;
      expect(body).to.include({ error: 'Ruta no encontrada', requested_path: '/api/v3/users/login', method: 'GET' });
      expectIsoTimestamp(body.timestamp);
    });

    it('a path outside /api answers the same body', async () => {
      const res = await app.client.delete('somewhere/else');
      expect(res.statusCode).to.equal(404);
      expect(res.body).to.include({ error: 'Ruta no encontrada', requested_path: '/somewhere/else', method: 'DELETE' });
    });
  });

  describe('request ids', () => {
    it('keeps a plain x-request-id and replaces anything else', async () => {
      const kept = await app.client.get('health', { headers: { 'x-request-id': 'abc-123.x' } });
      expect(kept.headers['x-request-id']).to.equal('abc-123.x');
      const replaced = await app.client.get('health', { headers: { 'x-request-id': 'no spaces <allowed>' } });
      expect(replaced.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
    });
  });

  describe('old versions (9.2)', () => {
    it('POST /api/v1/users/login answers 308 to /api/v3/users/login', async () => {
      const res = await app.client.post('api/v1/users/login', { json: { username: 'x', password: 'y' } });
      expect(res.statusCode).to.equal(308);
      expect(res.headers.location).to.equal('/api/v3/users/login');
    });

    it('a client following the 308 re-sends the same method and body', async () => {
      const { operator, password } = await makeOperator(app.rt.orm.em.fork());
      const res = await app.client.post('api/v1/users/login', {
        json: { username: operator.username, password },
        followRedirect: true,
      });
      expect(res.redirectUrls.map((u) => u.pathname)).to.deep.equal(['/api/v3/users/login']);
      expect(res.statusCode).to.equal(200);
      expect(res.body).to.include({ status: true, msg: LOGIN_MESSAGES.ok });
    });

    it('/api/v2 keeps the rest of the path and the query string', async () => {
      const res = await app.client.get('api/v2/types?x=1&y=2');
      expect(res.statusCode).to.equal(308);
      expect(res.headers.location).to.equal('/api/v3/types?x=1&y=2');
    });
  });

  describe('bodies', () => {
    it('malformed JSON answers 400 in the controller envelope', async () => {
      const res = await app.client.post('api/v3/users/login', {
        body: '{"username": "a", ',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.statusCode).to.equal(400);
      expect(res.body).to.deep.equal({ status: false, msg: MESSAGES.malformedJson });
    });

    it('a JSON scalar is not a request body (400)', async () => {
      const res = await app.client.post('api/v3/users/login', { body: '"text"', headers: { 'content-type': 'application/json' } });
      expect(res.statusCode).to.equal(400);
      expect(res.body).to.deep.equal({ status: false, msg: MESSAGES.malformedJson });
    });

    it('a body that is not JSON answers 415 in the controller envelope', async () => {
      const res = await app.client.post('api/v3/users/login', { form: { username: 'a', password: 'b' } });
      expect(res.statusCode).to.equal(415);
      expect(res.body).to.deep.equal({ status: false, msg: MESSAGES.unsupportedMediaType });
    });

    it('a body in an unsupported encoding answers 415; a body that does not decompress, 400', async () => {
      const json = { 'content-type': 'application/json' };
      const unknown = await app.client.post('api/v3/users/login', { body: '{}', headers: { ...json, 'content-encoding': 'zip-zap' } });
      expect(unknown.statusCode).to.equal(415);
      expect(unknown.body).to.deep.equal({ status: false, msg: MESSAGES.unsupportedEncoding });
      const broken = await app.client.post('api/v3/users/login', { body: '{}', headers: { ...json, 'content-encoding': 'gzip' } });
      expect(broken.statusCode).to.equal(400);
      expect(broken.body).to.deep.equal({ status: false, msg: MESSAGES.malformedJson });
    });

    it('a request without a body needs no content type', async () => {
      const res = await app.client.post('api/v3/users/login');
      expect(res.statusCode).to.equal(400);
      expect(res.body).to.deep.equal({ status: false, msg: LOGIN_MESSAGES.missing });
    });
  });

  describe('errors raised with ctx.throw', () => {
    let mini: MiniApp;
    before(async () => {
      mini = await serveMini(app.rt, (router) => {
        router.get('/client', (ctx) => ctx.throw(400, 'FALTA ALGO'));
        router.get('/server', (ctx) => ctx.throw(503, 'secret detail'));
      });
    });
    after(async () => mini.close());

    it('a 4xx keeps its status and message in the controller envelope; a 5xx is the 500 system envelope', async () => {
      const client = await mini.client.get('client');
      expect(client.statusCode).to.equal(400);
      expect(client.body).to.deep.equal({ status: false, msg: 'FALTA ALGO' });
      const server = await mini.client.get('server');
      expect(server.statusCode).to.equal(500);
      expectSystemEnvelope(server.body, MESSAGES.internal);
    });
  });

  describe('unhandled errors (7.2)', () => {
    it('answer 500 in the system envelope and log the same errorId', async () => {
      const em = app.rt.orm.em.fork();
      const { user, password } = await makeApiUser(em);
      const restore = stubMethod(Object.getPrototypeOf(app.rt.orm.em) as EntityManager, 'find', (async () => {
        throw new Error('database exploded');
      }) as unknown as EntityManager['find']);
      try {
        const res = await app.client.get('api/v3/types', { headers: { authorization: basic(user.username, password) } });
        expect(res.statusCode).to.equal(500);
        const body = expectSystemEnvelope(res.body, MESSAGES.internal);
        const line = app.logs.find((l) => l.errorId === body.errorId);
        expect(line, 'log line with the errorId').to.not.equal(undefined);
        expect(line).to.include({ msg: 'unhandled error', method: 'GET', path: '/api/v3/types' });
        expect((line?.err as Body).message).to.equal('database exploded');
      } finally {
        restore();
      }
    });
  });
});

describe('HTTP edge: request timeout and body limit', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({ env: { REQUEST_TIMEOUT_MS: '300', BODY_LIMIT: '1kb' } });
  });
  after(async () => app.close());

  it('a body that never finishes arriving answers 408 in the system envelope and closes the connection', async () => {
    const conn = rawConnection(app.http.port);
    conn.socket.write(
      'POST /api/v3/users/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"user',
    );
    const res = parseResponse(await conn.received);
    expect(res.statusCode).to.equal(408);
    expect(res.headers.connection).to.equal('close');
    expectSystemEnvelope(JSON.parse(res.body), MESSAGES.timeout);
  });

  it('a handler slower than the timeout answers 408; its late end changes nothing', async () => {
    const { user, password } = await makeApiUser(app.rt.orm.em.fork());
    let finished = false;
    const restore = stubMethod(Object.getPrototypeOf(app.rt.orm.em) as EntityManager, 'find', (async () => {
      await new Promise((r) => setTimeout(r, 800));
      finished = true;
      return [];
    }) as unknown as EntityManager['find']);
    try {
      const res = await app.client.get('api/v3/types', { headers: { authorization: basic(user.username, password) } });
      expect(res.statusCode).to.equal(408);
      expectSystemEnvelope(res.body, MESSAGES.timeout);
      await waitFor(() => finished, { what: 'the slow handler to end' });
    } finally {
      restore();
    }
    expect(app.logs.filter((l) => l.msg === 'unhandled error')).to.deep.equal([]);
    const after = await app.client.get('api/v3/nope');
    expect(after.statusCode).to.equal(404);
  });

  it('a login form over its limit answers 413 too', async () => {
    const res = await app.client.post('admin/login', { form: { username: 'a', password: 'x'.repeat(40000) } });
    expect(res.statusCode).to.equal(413);
    expectSystemEnvelope(res.body, MESSAGES.bodyTooLarge);
  });

  it('a body over BODY_LIMIT answers 413 in the system envelope', async () => {
    const res = await app.client.post('api/v3/users/login', { json: { username: 'a', password: 'x'.repeat(4096) } });
    expect(res.statusCode).to.equal(413);
    expectSystemEnvelope(res.body, MESSAGES.bodyTooLarge);
  });

  it('a body over BODY_LIMIT sent without Content-Length (chunked) answers 413 too', async () => {
    const res = await got.post(`${app.url}/api/v3/users/login`, {
      body: Buffer.alloc(4096, 'a').toString(),
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      throwHttpErrors: false,
      retry: { limit: 0 },
      responseType: 'json',
    });
    expect(res.statusCode).to.equal(413);
    expectSystemEnvelope(res.body, MESSAGES.bodyTooLarge);
  });
});
