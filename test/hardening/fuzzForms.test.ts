/**
 * Property-based fuzz of the HTML forms, the operator console's routes and the socket actions (issue 29, "Done
 * when": the fuzz test extended to the new routes, the forms and the socket actions). Complements fuzz.test.ts
 * (the JSON API, raw TCP), with the same arbitraries (test/helpers/fuzzArbitraries.ts).
 * - The customer page's forms under /seguimiento (code request, code check, chat post, survey, "Salir") and the
 *   share link's page GET /seguimiento/publico/{token}: form-encoded bodies with NUL (%00), lone surrogates
 *   (%ED%A0%80), invalid percent-encoding, 50,000-character values, repeated and bracketed keys, missing fields,
 *   wrong content types, with and without the page's cookie.
 * - The operator console: POST /admin/login (with `next` junk), POST /admin/logout, GET /api/v3/admin/mapa,
 *   GET /api/v3/admin/socket-token, the console's pages and its resend form (the confirmation and the resend),
 *   with and without the operator's cookie or JWT.
 * - The socket actions over /v3 for every kind of caller (a technician by its central's key, a technician by
 *   its own token, a generator, an operator, a customer): arbitrary event names and payloads.
 * Properties: no 5xx, no error-level log line, /health 200 at the end; a login's redirect is always a path of
 * this site under /admin/.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import got from 'got';
import { WebSocket } from 'ws';
import { signOperatorToken } from '../../src/auth/jwt.js';
import { issueTechnicianToken } from '../../src/auth/technicianToken.js';
import { Offer } from '../../src/db/entities/index.js';
import { issueShareToken, issueTrackingToken } from '../../src/domain/tracking/tokens.js';
import { resetDb } from '../helpers/db.js';
import { makeOffer, makeOperator, makeServiceType } from '../helpers/factories.js';
import { bodyText, deepArray, jsonText } from '../helpers/fuzzArbitraries.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { makeGenerator, makeResponder, type Generator, type Responder } from '../helpers/offers.js';
import { clearQueues } from '../helpers/queues.js';
import { connect, wsUrl, type TestSocket } from '../helpers/sockets.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261128);

// ---- form-encoded values and bodies (raw, as sent on the wire) ------------------------------------------------

/** Percent-encodes a string's UTF-8 bytes (a lone surrogate becomes U+FFFD, as any encoder would send it). */
const enc = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');

const rawValue: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '%00',
      'antes%00despu%C3%A9s',
      '%ED%A0%80',
      '%ED%BF%BF%20fin',
      '%E0%A4%A',
      '%',
      '%zz',
      '%%%',
      '%C0%AF',
      '%FF%FE',
      'x'.repeat(50_000),
      enc('ñ🚗'.repeat(2_000)),
      '',
      '+',
      '%20%201%20',
      '1',
      '6',
      '0',
      '123456',
      '%EF%BC%91%EF%BC%92%EF%BC%93%EF%BC%94%EF%BC%95%EF%BC%96',
      '3001234567',
      '%2B573001234567',
      'EXP-1',
      '__proto__',
      'si',
      'no',
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 100 }).map(enc) },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((s) => s.replace(/[&=]/g, '')) },
  { weight: 1, arbitrary: fc.nat({ max: 2000 }).map((n) => '%20'.repeat(n)) },
);

/** A value for a URL's query: long URLs are the HTTP parser's 431 (fuzz.test.ts's raw requests), not the routes'. */
const urlValue = rawValue.filter((v) => v.length < 4000);

/** Keys a form may carry: the form's own, bracketed (qs makes arrays and objects of them), prototype names, junk. */
const keysOf = (fields: string[]) => {
  const own = fields.length ? fields : ['x'];
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...own) },
    { weight: 1, arbitrary: fc.constantFrom(...own).map((k) => `${k}[]`) },
    { weight: 1, arbitrary: fc.constantFrom(...own).map((k) => `${k}[a][b][c][d][e][f]`) },
    { weight: 1, arbitrary: fc.constantFrom(...own).map((k) => `${k}[999999]`) },
    { weight: 1, arbitrary: fc.constantFrom('__proto__', '__proto__[x]', 'constructor[prototype][x]', 'hasOwnProperty', '%00', '%ED%A0%80', '', 'k%') },
  );
};

/** A form body: a valid one with fields dropped, changed, repeated or added, or junk. */
function formText(base: Record<string, string>): fc.Arbitrary<string> {
  const fields = Object.keys(base);
  const pair = fc.tuple(keysOf(fields), rawValue).map(([k, v]) => `${k}=${v}`);
  const nearValid = fc
    .tuple(fc.subarray(fields), fc.array(pair, { maxLength: 4 }))
    .map(([kept, extra]) => [...kept.map((k) => `${k}=${encodeURIComponent(base[k])}`), ...extra].join('&'));
  return fc.oneof(
    { weight: 6, arbitrary: nearValid },
    { weight: 1, arbitrary: fc.array(pair, { maxLength: 30 }).map((p) => p.join('&')) },
    { weight: 1, arbitrary: fc.constantFrom('', '&', '&&&', '=', '==', 'a', '%', '%00', 'a=1&a=2&a=3', `${'a[]=1&'.repeat(3000)}a[]=2`, `${'k'.repeat(60_000)}=1`) },
    { weight: 1, arbitrary: jsonText },
  );
}

const contentTypes = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/x-www-form-urlencoded') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'application/x-www-form-urlencoded; charset=utf-8',
      'application/x-www-form-urlencoded; charset=latin1',
      'application/x-www-form-urlencoded; charset=utf-16',
      'application/json',
      'text/plain',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded%00',
      '',
    ),
  },
);

/** How a browser marks where a form came from (pages.ts's same-origin rule); mostly absent, as a script's. */
const siteHeaders = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<Record<string, string>>({}, { 'sec-fetch-site': 'same-origin' }) },
  { weight: 1, arbitrary: fc.constantFrom<Record<string, string>>({ 'sec-fetch-site': 'cross-site' }, { origin: 'http://evil.example' }, { origin: 'null' }) },
);

// ---- the targets --------------------------------------------------------------------------------------------

/** A live customer tracking token (the page's cookie), its offer, a share link: issued in `before`. */
let trackingToken = '';
let trackingOffer = '';
let shareToken = '';
/** An admin's JWT (the operator cookie's value, or a Bearer), an operator's, a delivery to resend. */
let adminJwt = '';
let operatorJwt = '';
let deliveryId = '';

/** The page's cookie: the live token, none, or junk (unknown token, bad escapes, NUL, huge, repeated). */
type CookieKind = 'valid' | 'none' | string;
const pageCookies = fc.constantFrom<CookieKind>(
  'valid',
  'valid',
  'valid',
  'valid',
  'valid',
  'none',
  `seguimiento=${'C'.repeat(43)}`,
  'seguimiento=%E0%A4%A',
  'seguimiento=%00',
  'seguimiento=',
  `seguimiento=${'x'.repeat(6000)}`,
  'seguimiento=a; seguimiento=b',
);

interface FormTarget {
  path: string;
  base: () => Record<string, string>;
}

const PAGE_FORMS: FormTarget[] = [
  { path: '/seguimiento/codigo', base: () => ({ expediente: 'EXP-1', telefono: '3001234567' }) },
  { path: '/seguimiento/verificar', base: () => ({ expediente: 'EXP-1', code: '123456' }) },
  { path: '/seguimiento/mensaje', base: () => ({ texto: 'Hola, ¿ya viene?' }) },
  { path: '/seguimiento/encuesta', base: () => ({ rating: '5', comment: 'Muy bien' }) },
  { path: '/seguimiento/salir', base: () => ({}) },
];

const junkPath = fc.oneof(
  fc.constantFrom('%00', '%ED%A0%80', '%E0%A4%A', '%', 'pub_%00', `pub_${'A'.repeat(43)}`, `pub_${'%'.repeat(60)}`, 'x'.repeat(5000), '..%2F..%2Fetc', '%2F%2Fevil', 'pub_'),
  fc.string({ unit: 'binary', maxLength: 80 }).map(enc),
  fc.uuid(),
);

/** `next` junk for the login form (D23): other origins, protocol-relative, scripts, control characters, traversal. */
const nextJunk = fc.oneof(
  fc.constantFrom(
    'https://evil.example/admin/',
    'http://evil.example',
    '//evil.example/admin/',
    '///evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    '/admin/\\\\evil.example',
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)//admin/',
    'data:text/html,<script>alert(1)</script>',
    '/admin/%00',
    '/admin/\u0000',
    '/admin/\t//evil.example',
    '/admin/../../evil',
    '/admin/%2e%2e/%2e%2e/evil',
    '/admin/..%2F..%2Fevil',
    '/admin//evil.example',
    '/admin/@evil.example',
    '/admin/console?x=1#frag',
    '/admin/console',
    '/admin/login',
    '/admin/queues',
    '/seguimiento',
    '/admin',
    '',
    `/admin/${'a'.repeat(3000)}`,
    '/admin/\ud800',
    ' /admin/console',
    '/admin/\r\nSet-Cookie: x=1',
  ),
  fc.webUrl(),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => `/admin/${s}`),
  fc.string({ unit: fc.constantFrom(...'/\\:.@%?#aA0\t '.split('')), maxLength: 20 }).map((s) => `/admin/${s}`),
);

/** True when a redirect's Location is a path of this site under /admin/ (D23). */
function sameSiteAdminPath(location: string): boolean {
  if (!location.startsWith('/admin/') || location.startsWith('//') || /[\\\u0000-\u001f\u007f]/.test(location)) return false;
  const base = 'http://consola.invalid';
  const url = URL.parse(location, base);
  return url !== null && url.origin === base && url.pathname.startsWith('/admin/');
}

describe('hardening: fuzz of the forms, the console and the socket actions (issue 29)', function () {
  this.timeout(180000);
  let app: TestApp;
  let gen: Generator;
  let central: Responder;
  const failures: string[] = [];
  /** `METHOD path-prefix status` seen, to check the fuzz reaches past the refusals (a live session, a login, a resend) */
  const seen = new Set<string>();

  before(async () => {
    app = await startApp({ env: { LOGIN_RATE_LIMIT: '100000', LOGIN_ACCOUNT_LIMIT: '100000' } });
    await resetDb(app.rt.orm);
    const em = app.rt.orm.em.fork();
    await makeServiceType(em, { id: 1 });
    gen = await makeGenerator(em);
    central = await makeResponder(em);
    await em.fork().nativeUpdate('ApiUser', { id: central.user.id }, { endpoints: ['*'] });
    await makeOperator(em, { username: 'ops', password: 'secret-password' });
    const admin = (await makeOperator(em, { role: 'admin' })).operator;
    const operator = (await makeOperator(em)).operator;
    adminJwt = await signOperatorToken(admin, app.rt.config.jwtSecret, '1h');
    operatorJwt = await signOperatorToken(operator, app.rt.config.jwtSecret, '1h');
    const offer = await makeOffer(em, gen.user, { state: 'ASIGNADA', codigoServicio: 'SV-FZ2K7', assignedTechnician: central.technician });
    trackingOffer = offer.uuid;
    trackingToken = (await issueTrackingToken(em, offer)).token;
    shareToken = (await issueShareToken(em.fork(), trackingToken)).token;
    deliveryId = randomUUID();
    // a finished, failed delivery to a closed port: a resend fails fast (connection refused)
    await em.fork().execute(
      `insert into webhook_delivery (id, offer_uuid, kind, event_id, url, method, request_headers, request_body, state, attempts, status_code, created_at, completed_at)
       values (?, ?, 'state', ?, 'http://127.0.0.1:9/estado', 'PUT', '{}', '{}', 'failed', 1, 500, now(), now())`,
      [deliveryId, offer.uuid, `evt-${randomUUID()}`],
    );
  });
  after(async () => {
    if (app) await clearQueues(app.rt);
    await app?.close();
  });

  const unexpectedLogs = () => app.logs.filter((l) => Number(l.level) >= 50).map((l) => `${String(l.msg)} ${JSON.stringify(l.err ?? '').slice(0, 300)}`);
  const health = async () => (await got(`${app.url}/health`, { throwHttpErrors: false, retry: { limit: 0 } })).statusCode;

  async function request(method: string, path: string, o: { body?: string; headers?: Record<string, string> } = {}) {
    const res = await got(`${app.url}${path}`, {
      method: method as 'GET',
      body: o.body,
      headers: o.headers ?? {},
      allowGetBody: true,
      throwHttpErrors: false,
      retry: { limit: 0 },
      followRedirect: false,
      timeout: { request: 30000 },
    });
    seen.add(`${method} ${path.split('?')[0].replace(/\/entregas\/.*$/, '/entregas')} ${res.statusCode}`);
    if (res.statusCode >= 500) failures.push(`${method} ${path} ${JSON.stringify(o.headers ?? {}).slice(0, 200)} ${res.statusCode} ${res.body.slice(0, 300)} <- ${(o.body ?? '').slice(0, 300)}`);
    return res;
  }

  const formHeaders = (type: string, cookie: string | null, site: Record<string, string>) => ({
    ...(type ? { 'content-type': type } : {}),
    ...(cookie === null ? {} : { cookie }),
    ...site,
  });

  it('the customer page’s forms and the share page: any form body, content type and cookie, never a 5xx', async () => {
    // "Salir" revokes the token it is sent with (D24): it gets a fresh one each time, the other forms the live one
    const cookieFor = async (t: FormTarget, kind: CookieKind) => {
      if (kind === 'none') return null;
      if (kind !== 'valid') return kind;
      if (t.path !== '/seguimiento/salir') return `seguimiento=${trackingToken}`;
      const em = app.rt.orm.em.fork();
      return `seguimiento=${(await issueTrackingToken(em, await em.findOneOrFail(Offer, { uuid: trackingOffer }))).token}`;
    };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PAGE_FORMS).chain((t) =>
          fc.tuple(fc.constant(t), formText(t.base()), contentTypes, pageCookies, siteHeaders),
        ),
        async ([t, body, type, cookieKind, site]) => {
          const res = await request('POST', t.path, { body, headers: formHeaders(type, await cookieFor(t, cookieKind), site) });
          return res.statusCode < 500;
        },
      ),
      { numRuns: 250, seed: SEED, endOnFailure: false },
    );
    // the page itself and its live part, with junk queries and cookies; the share page with junk tokens and the live one
    const gets = fc.oneof(
      fc.tuple(fc.constantFrom('/seguimiento', '/seguimiento/parcial'), urlValue, urlValue).map(([p, q, o]) => `${p}?expediente=${q}&otro=${o}`),
      junkPath.map((p) => `/seguimiento/publico/${p}`),
      fc.constant(`/seguimiento/publico/${shareToken}`),
      fc.constant(`/seguimiento/publico/${trackingToken}`),
    );
    await fc.assert(
      fc.asyncProperty(gets, fc.constantFrom<string | null>(null, `seguimiento=${trackingToken}`, 'seguimiento=%E0%A4%A', `seguimiento=${'C'.repeat(43)}`), async (path, cookie) => {
        const res = await request('GET', path, { headers: cookie ? { cookie } : {} });
        return res.statusCode < 500;
      }),
      { numRuns: 120, seed: SEED, endOnFailure: false },
    );
    // reached past the refusals: a chat message posted, a survey refused by the domain, a session's page, a sign-out
    expect([...seen]).to.include.members(['POST /seguimiento/mensaje 303', 'POST /seguimiento/salir 303', 'GET /seguimiento 200', `GET /seguimiento/publico/${shareToken} 200`]);
    expect(failures).to.deep.equal([]);
    expect(unexpectedLogs()).to.deep.equal([]);
    expect(await health()).to.equal(200);
  });

  it('POST /admin/login with junk `next` and junk forms: never a 5xx, a redirect only to a path of this site under /admin/', async () => {
    const badRedirects: string[] = [];
    const loginForm = fc.oneof(
      // right credentials (the redirect's target is the property), wrong ones, or a fuzzed form with a junk `next`
      { weight: 3, arbitrary: fc.tuple(fc.constantFrom('secret-password', 'secret-password', 'wrong-password'), nextJunk).map(([pw, n]) => `username=ops&password=${pw}&next=${encodeURIComponent(n.replace(/[\ud800-\udfff]/g, '\ufffd'))}`) },
      { weight: 2, arbitrary: fc.tuple(nextJunk.map((n) => enc(n)), rawValue).map(([n, raw]) => `username=ops&password=secret-password&next=${raw.startsWith('%') ? raw : n}`) },
      { weight: 2, arbitrary: formText({ username: 'ops', password: 'secret-password', next: '/admin/console' }) },
    );
    const query = fc.option(nextJunk.map((n) => `?next=${enc(n)}`), { nil: '' });
    await fc.assert(
      fc.asyncProperty(loginForm, query, contentTypes, siteHeaders, async (body, q, type, site) => {
        const res = await request('POST', `/admin/login${q}`, { body, headers: formHeaders(type, null, site) });
        const location = res.headers.location;
        if (res.statusCode >= 300 && res.statusCode < 400 && (typeof location !== 'string' || !sameSiteAdminPath(location))) badRedirects.push(`${String(location)} <- ${q} ${body.slice(0, 200)}`);
        return res.statusCode < 500;
      }),
      { numRuns: 150, seed: SEED, endOnFailure: false },
    );
    expect(badRedirects).to.deep.equal([]);
    expect([...seen], 'some logins succeeded').to.include('POST /admin/login 303');
    expect(failures).to.deep.equal([]);
    expect(unexpectedLogs()).to.deep.equal([]);
    expect(await health()).to.equal(200);
  });

  it('the console’s routes (logout, map, socket token, pages, resend) with and without the operator’s cookie or JWT: never a 5xx', async () => {
    const credentials = fc.constantFrom<Record<string, string>>(
      {},
      { cookie: `operator_token=${adminJwt}` },
      { cookie: `operator_token=${adminJwt}` },
      { cookie: `operator_token=${adminJwt}` },
      { authorization: `Bearer ${adminJwt}` },
      { cookie: `operator_token=${operatorJwt}` },
      { authorization: `Bearer ${adminJwt}` },
      { authorization: `Bearer ${operatorJwt}` },
      { cookie: 'operator_token=%E0%A4%A' },
      { cookie: `operator_token=${'a.'.repeat(3000)}` },
      { authorization: `Bearer ${adminJwt.slice(0, -4)}AAAA` },
      { authorization: `Bearer ${trackingToken}` },
      { authorization: 'Bearer ' },
      { authorization: 'Basic AAAA' },
    );
    const resendId = fc.oneof(fc.constant(deliveryId), fc.constant(deliveryId), fc.uuid(), junkPath);
    const calls = fc.oneof(
      fc.tuple(formText({}), contentTypes).map(([body, type]) => ({ method: 'POST', path: '/admin/logout', body, type })),
      fc.tuple(fc.constantFrom('/api/v3/admin/mapa', '/api/v3/admin/socket-token'), jsonText).map(([path, body]) => ({ method: 'GET', path, body, type: 'application/json' })),
      fc.tuple(fc.constantFrom('/api/v3/admin/mapa', '/api/v3/admin/socket-token'), urlValue).map(([path, q]) => ({ method: 'GET', path: `${path}?x=${q}`, body: undefined, type: '' })),
      urlValue.map((q) => ({ method: 'GET', path: `/admin/console?q=${q}`, body: undefined, type: '' })),
      fc.tuple(fc.oneof(fc.constant(trackingOffer), fc.constant('SV-FZ2K7'), junkPath), urlValue).map(([ref, r]) => ({ method: 'GET', path: `/admin/console/ofertas/${ref}?reenvio=${r}`, body: undefined, type: '' })),
      fc.constant({ method: 'GET', path: '/admin/console/cola', body: undefined, type: '' }),
    );
    const resends = fc
      .tuple(resendId, formText({ confirmado: 'si', entiendo: 'si' }), contentTypes)
      .map(([id, body, type]) => ({ method: 'POST', path: `/admin/console/entregas/${id}/reenviar`, body, type }));
    await fc.assert(
      fc.asyncProperty(fc.oneof({ weight: 3, arbitrary: calls }, { weight: 2, arbitrary: resends }), credentials, siteHeaders, async (c, creds, site) => {
        const res = await request(c.method, c.path, { body: c.body, headers: { ...formHeaders(c.type, null, site), ...creds } });
        return res.statusCode < 500;
      }),
      { numRuns: 200, seed: SEED, endOnFailure: false },
    );
    // past the refusals: the resend's confirmation page, the map, a socket token
    expect([...seen]).to.include.members(['POST /admin/console/entregas 200', 'GET /api/v3/admin/mapa 200', 'GET /api/v3/admin/socket-token 200']);
    expect(failures).to.deep.equal([]);
    expect(unexpectedLogs()).to.deep.equal([]);
    expect(await health()).to.equal(200);
  });

  it('socket actions of every kind of caller (central key, technician token, generator, operator, customer): answered, never an error logged', async () => {
    const em = app.rt.orm.em.fork();
    const techToken = (await issueTechnicianToken(em, central.user, central.technician.dni, 3600)).token;
    const customerToken = (await issueTrackingToken(em, await makeOffer(em, gen.user, { state: 'ASIGNADA' }))).token;
    const open = await makeOffer(app.rt.orm.em.fork(), gen.user, { state: 'ABIERTA' });
    const sockets: TestSocket[] = [
      await connect(wsUrl(app.url), { headers: { 'x-apikey': central.key, 'x-dni-tecnico': central.technician.dni } }),
      await connect(wsUrl(app.url), { headers: { authorization: `Bearer ${techToken}` } }),
      await connect(wsUrl(app.url), { headers: { authorization: gen.auth } }),
      await connect(`${wsUrl(app.url)}?token=${adminJwt}`),
      await connect(wsUrl(app.url), { headers: { authorization: `Bearer ${customerToken}` } }),
    ];
    const events = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('offer.respond', 'position', 'progress') },
      { weight: 1, arbitrary: fc.constantFrom('ping', 'offer.new', 'offer.state', 'connected', 'pong', 'error', '', '__proto__', 'constructor', 'offer.respond.result', 'POSITION', 'position\u0000', '\ud800') },
      { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
    );
    const ids = fc.constantFrom(open.uuid, trackingOffer, randomUUID(), 'x', '');
    // each action's valid data (src/realtime/protocol.ts), fuzzed; any event may carry any of them
    const bases = (id: string): Record<string, Record<string, unknown>> => ({
      'offer.respond': { id, tiempoLlegadaSitio: 5, latitudTecnico: '4.6', longitudTecnico: '-74.1' },
      position: { latitud: 4.6, longitud: -74.1, disponible: true },
      progress: { id, estado: 'EN_CAMINO', latitudTecnico: '4.6', longitudTecnico: '-74.1' },
    });
    const payload = (e: string) => fc.tuple(ids, fc.constantFrom('offer.respond', 'position', 'progress')).chain(([id, own]) => bodyText(bases(id)[e] ?? bases(id)[own]));
    const message = fc.oneof(
      { weight: 4, arbitrary: fc.tuple(events, fc.option(jsonText)).chain(([e, ref]) => payload(e).map((data) => `{"event":${JSON.stringify(e)},"data":${data}${ref ? `,"ref":${ref}` : ''}}`)) },
      { weight: 1, arbitrary: fc.tuple(events, jsonText).map(([e, data]) => `{"event":${JSON.stringify(e)},"data":${data},"ref":"r"}`) },
      { weight: 1, arbitrary: fc.constantFrom('{', 'null', '[]', '"\\u0000"', '{"event":"position"}', '{"data":{}}', deepArray) },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...sockets.keys()), message, async (i, text) => {
        const s = sockets[i];
        if (s.ws.readyState !== WebSocket.OPEN) return true;
        const before = s.frames.length;
        s.ws.send(text);
        // every message is answered (an error frame or the action's result) or closes the socket (too big)
        await new Promise<void>((resolve) => {
          const poll = setInterval(() => {
            if (s.frames.length > before || s.ws.readyState !== WebSocket.OPEN) {
              clearInterval(poll);
              resolve();
            }
          }, 2);
        });
        return true;
      }),
      { numRuns: 250, seed: SEED },
    );
    const results = sockets.flatMap((s) => s.frames.filter((f) => f.event.endsWith('.result')).map((f) => (f.data as { status: number }).status));
    for (const s of sockets) if (s.ws.readyState === WebSocket.OPEN) await s.close();
    expect(results.filter((status) => status >= 500)).to.deep.equal([]);
    expect(results.length, 'some messages reached an action').to.be.greaterThan(0);
    expect(unexpectedLogs()).to.deep.equal([]);
    expect(await health()).to.equal(200);
  });
});
