/**
 * Property-based fuzz of the whole edge (issue 8, "Also deliver"): every JSON endpoint, with and
 * without valid credentials, with arbitrary and near-valid bodies (valid bodies with fields
 * replaced by NUL characters, lone surrogates, 50,000-character strings, spaces around digits, deep
 * nesting, huge arrays, extreme numbers, wrong types), the socket messages, and malformed raw
 * requests over TCP (bad request lines, bad upgrade targets, cut bodies, wrong content-length).
 * Properties: no 5xx, no unexpected error logged, the process alive and /health 200 throughout.
 *
 * Bounded to run in well under two minutes on 2 cores (numRuns below). Runs of spaces are capped at
 * 1,000: longer ones only measure the regular expressions' cost, issue 8.2's subject (test/http/limits.test.ts).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import got from 'got';
import { WebSocket } from 'ws';
import { resetDb } from '../helpers/db.js';
import { makeOffer, makeOperator, makeServiceType } from '../helpers/factories.js';
import { integrityHeaders } from '../helpers/integrity.js';
import { issueTrackingToken } from '../../src/domain/tracking/tokens.js';
import { basic, startApp, type TestApp } from '../helpers/harness.js';
import { clearQueues } from '../helpers/queues.js';
import { makeGenerator, makeResponder, offerBody, type Generator, type Responder } from '../helpers/offers.js';
import { spawnApi, type ApiProcess } from '../helpers/process.js';
import { rawConnection } from '../helpers/raw.js';
import { connect, makeCrew, wsUrl, type Crew } from '../helpers/sockets.js';
import { bodyText, deepArray, jsonText, special } from '../helpers/fuzzArbitraries.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);

// ---- the endpoints ------------------------------------------------------------------------------

interface Target {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  /** signed: the D13 integrity headers (the tracking and chat routes) */
  auth: 'basic' | 'key' | 'none' | 'signed';
  base: () => Record<string, unknown>;
}

/** A live customer tracking token (D14), issued in `before`, for the tracking routes' bodies. */
let trackingToken = '';

const uuidOf = () => randomUUID();
const TARGETS: Target[] = [
  { method: 'POST', path: '/api/v3/oferta', auth: 'basic', base: () => offerBody({ vehiculo: { marca: 'Mazda', modelo: '2020' }, horaCita: '10:30', internal: 1 }) },
  { method: 'GET', path: '/api/v3/offer-responses', auth: 'basic', base: () => ({ uuid: uuidOf() }) },
  { method: 'PUT', path: '/api/v3/aceptacion', auth: 'key', base: () => ({ id: uuidOf(), dniPrestador: '900000001', dniTecnico: '1', tiempoLlegadaSitio: 5, latitudTecnico: '4.6' }) },
  { method: 'POST', path: '/api/v3/asignacion', auth: 'basic', base: () => ({ uuid: uuidOf(), placa: 'ABC123', observaciones: 'ok' }) },
  { method: 'POST', path: '/api/v3/no-asignacion', auth: 'basic', base: () => ({ uuid: uuidOf(), motivo: 'x' }) },
  { method: 'POST', path: '/api/v3/cancelacion', auth: 'basic', base: () => ({ uuid: uuidOf(), motivo: 'x' }) },
  { method: 'POST', path: '/api/v3/add-address', auth: 'basic', base: () => ({ uuid: uuidOf(), direccion: 'Calle 1', latitud: 4.6, longitud: -74.1 }) },
  { method: 'POST', path: '/api/v3/asignacion-directa', auth: 'basic', base: () => offerBody({ dniPrestador: '900000001', dniTecnico: '1' }) },
  { method: 'PUT', path: '/api/v3/estado-servicio', auth: 'key', base: () => ({ id: uuidOf(), estado: 'EN_CAMINO', latitudTecnico: 4.6, longitudTecnico: -74.1 }) },
  { method: 'PUT', path: '/api/v3/posicion-tecnico', auth: 'key', base: () => ({ dniTecnico: '1', latitud: 4.6, longitud: -74.1, disponible: true }) },
  { method: 'POST', path: '/api/v3/finalize', auth: 'basic', base: () => ({ uuid: uuidOf() }) },
  { method: 'POST', path: '/api/v3/tecnicos/token', auth: 'key', base: () => ({ dniTecnico: '1' }) },
  { method: 'GET', path: '/api/v3/tecnicos/servicios', auth: 'key', base: () => ({}) },
  { method: 'POST', path: '/api/v3/queries/history', auth: 'basic', base: () => ({ line: 'ASISTENCIA', autNumber: 12, page: 1, pageSize: 10, desde: '2026-01-01' }) },
  { method: 'GET', path: '/api/v3/queries/history-options', auth: 'basic', base: () => ({}) },
  { method: 'GET', path: '/api/v3/types', auth: 'basic', base: () => ({}) },
  { method: 'POST', path: '/api/v3/users/login', auth: 'none', base: () => ({ username: 'ops', password: 'secret-password' }) },
  { method: 'GET', path: '/api/v3/admin/offers/x/recipients', auth: 'none', base: () => ({}) },
  { method: 'POST', path: '/api/v3/webhooks/test', auth: 'basic', base: () => ({ tipo: 'respuesta' }) },
  { method: 'POST', path: '/api/v3/webhooks/test', auth: 'key', base: () => ({ tipo: 'novedad' }) },
  // D24 (issue 29 items 6 and 9): share links, the public view, sign-out
  { method: 'POST', path: '/api/v3/tracking/share', auth: 'signed', base: () => ({ token: trackingToken }) },
  { method: 'POST', path: '/api/v3/tracking/track/public', auth: 'signed', base: () => ({ token: `pub_${'A'.repeat(43)}` }) },
  { method: 'POST', path: '/api/v3/tracking/revoke', auth: 'signed', base: () => ({ token: 'B'.repeat(43) }) },
];

describe('hardening: fuzz of the edge (issue 8)', function () {
  this.timeout(180000);
  let app: TestApp;
  let gen: Generator;
  let central: Responder;
  let crew: Crew;
  const failures: string[] = [];

  before(async () => {
    app = await startApp({ env: { LOGIN_RATE_LIMIT: '100000' } });
    await resetDb(app.rt.orm);
    const em = app.rt.orm.em.fork();
    await makeServiceType(em, { id: 1 });
    gen = await makeGenerator(em);
    central = await makeResponder(em);
    await em.fork().nativeUpdate('ApiUser', { id: central.user.id }, { endpoints: ['*'] });
    crew = await makeCrew(em);
    await makeOperator(em, { username: 'ops', password: 'secret-password' });
    trackingToken = (await issueTrackingToken(em, await makeOffer(em, gen.user, { state: 'ASIGNADA' }))).token;
  });
  after(async () => {
    // Offers were created without workers: their jobs must not run in a later suite.
    if (app) await clearQueues(app.rt);
    await app?.close();
  });

  const unexpectedLogs = () => app.logs.filter((l) => Number(l.level) >= 50).map((l) => `${String(l.msg)} ${JSON.stringify(l.err ?? '').slice(0, 300)}`);
  const health = async () => (await got(`${app.url}/health`, { throwHttpErrors: false, retry: { limit: 0 } })).statusCode;

  async function send(t: Target, body: string, authKind: 'valid' | 'none' | 'wrong', extra: Record<string, string> = {}): Promise<number> {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...extra };
    if (authKind !== 'none' && t.auth === 'basic') headers.authorization = authKind === 'valid' ? gen.auth : basic('nadie', 'nada');
    if (authKind !== 'none' && t.auth === 'key') headers['x-apikey'] = authKind === 'valid' ? central.key : 'k'.repeat(40);
    if (authKind !== 'none' && t.auth === 'signed') {
      const secret = authKind === 'valid' ? app.rt.config.integritySecret : 'not-the-secret';
      Object.assign(headers, integrityHeaders({ secret, method: t.method, target: t.path, body }));
    }
    const res = await got(`${app.url}${t.path}`, {
      method: t.method,
      body,
      headers,
      allowGetBody: true,
      throwHttpErrors: false,
      retry: { limit: 0 },
      followRedirect: false,
      timeout: { request: 30000 },
    });
    if (res.statusCode >= 500) failures.push(`${t.method} ${t.path} [${authKind}] ${JSON.stringify(extra).slice(0, 300)} ${res.statusCode} ${res.body.slice(0, 300)} <- ${body.slice(0, 300)}`);
    return res.statusCode;
  }

  it('every JSON endpoint: each special value once (in each field in turn), authenticated, never a 5xx', async () => {
    const values = fc.sample(special, { numRuns: 300, seed: SEED }).filter((v, i, a) => a.indexOf(v) === i);
    for (const t of TARGETS) {
      const base = t.base();
      const fields = [...Object.keys(base), 'extra'];
      for (const [i, v] of values.entries()) {
        const field = fields[i % fields.length];
        const entries = Object.entries(base).map(([k, x]) => [k, JSON.stringify(x)] as const);
        const body = `{${[...entries.filter(([k]) => k !== field), [field, v] as const].map(([k, x]) => `${JSON.stringify(k)}:${x}`).join(',')}}`;
        await send(t, body, 'valid');
      }
    }
    expect(failures).to.deep.equal([]);
    expect(unexpectedLogs()).to.deep.equal([]);
    expect(await health()).to.equal(200);
  });

  it('every JSON endpoint with arbitrary and near-valid bodies, with and without credentials: no 5xx, /health 200', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TARGETS).chain((t) => fc.tuple(fc.constant(t), bodyText(t.base()), fc.constantFrom('valid', 'valid', 'valid', 'none', 'wrong') as fc.Arbitrary<'valid' | 'none' | 'wrong'>)),
        async ([t, body, authKind]) => {
          const status = await send(t, body, authKind);
          return status < 500;
        },
      ),
      { numRuns: 300, seed: SEED, endOnFailure: false },
    );
    expect(failures).to.deep.equal([]);
    expect(unexpectedLogs()).to.deep.equal([]);
    expect(await health()).to.equal(200);
  });

  it('Idempotency-Key (D24): junk values and reused keys on every POST and PUT, with near-valid bodies: never a 5xx', async () => {
    // What an HTTP client can put in a header value: tab, visible ASCII, space and obs-text (0x80–0xFF).
    const headerChar = fc.constantFrom('\t', ' ', '~', '!', 'a', 'Z', '0', '"', '\\', ',', ';', '=', '\u0080', '\u00e9', '\u00ff', '\u00a0');
    const junkKey = fc.oneof(
      fc.string({ unit: headerChar, minLength: 1, maxLength: 300 }),
      fc.constantFrom('', ' ', '\t', 'k'.repeat(255), 'k'.repeat(256), 'k'.repeat(8000), '\u00ff'.repeat(10), 'a, b', 'null', '0'),
      fc.uuid(),
    );
    // a few keys reused across requests: replays, other bodies, other operations
    const reused = fc.constantFrom('fuzz-key-1', 'fuzz-key-2', 'fuzz-key-3');
    const writes = TARGETS.filter((t) => t.method !== 'GET' && t.auth !== 'none');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...writes).chain((t) => fc.tuple(fc.constant(t), bodyText(t.base()), fc.oneof(junkKey, reused), fc.constantFrom('valid', 'valid', 'wrong') as fc.Arbitrary<'valid' | 'wrong'>)),
        async ([t, body, key, authKind]) => (await send(t, body, authKind, { 'idempotency-key': key })) < 500,
      ),
      { numRuns: 300, seed: SEED, endOnFailure: false },
    );
    expect(failures).to.deep.equal([]);
    expect(unexpectedLogs()).to.deep.equal([]);
    expect(await health()).to.equal(200);
  });

  it('socket messages of every kind of client: answered or refused, never an unexpected error', async () => {
    const tech = await connect(wsUrl(app.url), { headers: crew.headers });
    const genSocket = await connect(wsUrl(app.url), { headers: { authorization: gen.auth } });
    // a customer's socket (D24: its token in a header), which may send nothing but ping
    const customerToken = (await issueTrackingToken(app.rt.orm.em.fork(), await makeOffer(app.rt.orm.em.fork(), gen.user, { state: 'ASIGNADA' }))).token;
    const customer = await connect(wsUrl(app.url), { headers: { authorization: `Bearer ${customerToken}` } });
    const events = fc.constantFrom('ping', 'offer.respond', 'position', 'progress', 'nope', '', '__proto__');
    const message = fc.oneof(
      fc.tuple(events, jsonText, fc.option(jsonText)).map(([e, data, ref]) => `{"event":${JSON.stringify(e)},"data":${data}${ref ? `,"ref":${ref}` : ''}}`),
      fc.tuple(events, bodyText({ id: randomUUID(), tiempoLlegadaSitio: 5, latitud: 4.6, longitud: -74.1, estado: 'EN_CAMINO' })).map(([e, data]) => `{"event":${JSON.stringify(e)},"data":${data},"ref":"r"}`),
      jsonText,
      fc.constantFrom('{', 'null', '"\\u0000"', deepArray),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(tech, genSocket, customer), message, async (s, text) => {
        if (s.ws.readyState !== WebSocket.OPEN) return true;
        const before = s.frames.length;
        s.ws.send(text);
        // Every message gets an answer (an error frame or the action's reply) or closes the socket (too big).
        await new Promise<void>((resolve) => {
          const done = () => {
            clearInterval(poll);
            resolve();
          };
          const poll = setInterval(() => {
            if (s.frames.length > before || s.ws.readyState !== WebSocket.OPEN) done();
          }, 2);
        });
        return true;
      }),
      { numRuns: 200, seed: SEED },
    );
    for (const s of [tech, genSocket, customer]) if (s.ws.readyState === WebSocket.OPEN) await s.close();
    expect(unexpectedLogs()).to.deep.equal([]);
    expect(await health()).to.equal(200);
  });

  describe('malformed raw requests over TCP against a spawned API process', () => {
    let api: ApiProcess;
    before(async () => {
      api = await spawnApi();
    });
    after(async () => {
      await api?.stop();
    });

    async function exchange(text: string | Buffer, closeAfterMs = 100): Promise<string> {
      const { socket, received, data } = rawConnection(api.port);
      const done = received.catch(() => data());
      socket.on('error', () => undefined);
      socket.write(text);
      // A cut body: the client stops sending and closes its side after a moment.
      const timer = setTimeout(() => socket.end(), closeAfterMs);
      const out = await done;
      clearTimeout(timer);
      return out;
    }

    const targets = fc.oneof(
      fc.constantFrom('http://[/v3', '//', 'http://x:99999/v3', '/v3%', '/%zz', '/v3%00', '*', 'http:/v3', '/v3?token=%ZZ', '/v3?token=\u00e9', `/v3?${'a'.repeat(6000)}`),
      fc.string({ unit: fc.constantFrom(...'/:[]@%?#&=.vV3hHtTpP0123456789x-_~!$'.split('')), maxLength: 40 }),
      fc.webUrl().map((u) => u.replace(/\s/g, '')),
    );
    const requests = fc.oneof(
      targets.map(
        (t) =>
          `GET ${t} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
      ),
      targets.map((t) => `POST ${t} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`),
      fc.tuple(fc.constantFrom('/api/v3/oferta', '/api/v3/users/login', '/health', '/nope'), fc.nat({ max: 5000 }), fc.string({ maxLength: 100 })).map(
        ([p, declared, sent]) => `POST ${p} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n${sent}`,
      ),
      fc.constantFrom(
        'GET / HTTP/9.9\r\n\r\n',
        'BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n',
        '\r\n\r\n\r\n',
        'GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
        'POST /api/v3/oferta HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n',
        'POST /api/v3/oferta HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n5\r\n{"a":',
        'POST /api/v3/oferta HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n\r\nabcd',
        'POST /api/v3/oferta HTTP/1.1\r\nHost: x\r\nContent-Type: application/json; charset=utf-16\r\nContent-Length: 2\r\n\r\n{}',
        'GET /v3 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Basic AAAA\r\n\r\n',
        'GET /v3 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: short\r\nx-apikey: k\r\nx-dni-tecnico: 1\r\n\r\n',
        `GET /v3 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer ${'a.'.repeat(3000)}\r\n\r\n`,
        // D24: a token in the URL, a cookie with a foreign, malformed or missing Origin, a tracking-shaped bearer
        'GET /seguimiento/publico/%00%ff HTTP/1.1\r\nHost: x\r\n\r\n',
        `GET /seguimiento/publico/pub_${'%'.repeat(60)} HTTP/1.1\r\nHost: x\r\n\r\n`,
        'GET /v3?tracking=abc HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
        `GET /v3 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nCookie: seguimiento=${'C'.repeat(43)}\r\nOrigin: http://[::1\r\n\r\n`,
        `GET /v3 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nCookie: seguimiento=${'C'.repeat(43)}\r\nOrigin: http://x\r\n\r\n`,
        `GET /v3 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nCookie: seguimiento=%E0%A4%A\r\n\r\n`,
        `GET /v3 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer ${'D'.repeat(43)}\r\n\r\n`,
      ),
      fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
      // Idempotency-Key (D24) with any bytes, control characters included
      fc.uint8Array({ minLength: 0, maxLength: 400 }).map((key) =>
        Buffer.concat([
          Buffer.from('POST /api/v3/asignacion HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Basic YTpi\r\nIdempotency-Key: '),
          Buffer.from(key),
          Buffer.from('\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}'),
        ]),
      ),
    );

    it('never a 5xx, never a crash, /health 200 throughout', async () => {
      const bad: string[] = [];
      await fc.assert(
        fc.asyncProperty(requests, async (req) => {
          const out = await exchange(req);
          const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(out)?.[1] ?? 0);
          if (status >= 500) bad.push(`${status} <- ${String(req).slice(0, 200)}`);
          return status < 500;
        }),
        { numRuns: 200, seed: SEED, endOnFailure: false },
      );
      expect(bad).to.deep.equal([]);
      expect(await api.health()).to.equal(200);
      expect(api.proc.stdout()).not.to.contain('"level":50');
    });
  });
});
