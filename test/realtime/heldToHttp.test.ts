/**
 * Issue 29 item 7 (D24): sockets held to the rules HTTP keeps, with real
 * sockets against the real PostgreSQL and Redis:
 * (a) an action checks the endpoint permission of its HTTP route;
 * (b) every open socket's credential is checked again (SOCKET_RECHECK_MS)
 *     and the socket closed (4401 revoked/expired, 4403 no longer allowed);
 * (c) at most SOCKETS_PER_IDENTITY per identity, across API processes;
 * (d) a cookie-authenticated (browser) socket needs the service's Origin;
 * (e) position notices to the customer are coalesced per service, and the
 *     page's refetch writes nothing when there is nothing to mark read.
 */
import { expect } from 'chai';
import pino from 'pino';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { loadConfig } from '../../config/index.js';
import { AUTH_MESSAGES } from '../../src/auth/credentials.js';
import { TRACKING_MESSAGES } from '../../src/api/customer/messages.js';
import { ApiUser, OperatorUser, type Offer } from '../../src/db/entities/index.js';
import { issueTrackingToken } from '../../src/domain/tracking/tokens.js';
import { originAllowed } from '../../src/realtime/auth.js';
import { Hub, type Client } from '../../src/realtime/hub.js';
import { SOCKET_MESSAGES } from '../../src/realtime/server.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { offerIn, startOps, type Generator, type Provider } from '../helpers/ops.js';
import { connect, makeCrew, makeGenerator, makeOperatorToken, refusal, wsUrl, type TestSocket } from '../helpers/sockets.js';
import { statementsOf } from '../helpers/statements.js';
import { makeOperator, makeTechnician } from '../helpers/factories.js';
import { signOperatorToken } from '../../src/auth/jwt.js';
import { waitFor } from '../helpers/wait.js';

const PUBLIC_ORIGIN = 'https://seguimiento.example.com';
const CAP = 3;
type Body = Record<string, unknown>;

describe('sockets held to HTTP’s rules (issue 29 item 7, D24)', () => {
  let app: TestApp;
  let second: TestApp;
  let gen: Generator;
  let prov: Provider;
  const open: TestSocket[] = [];
  const env = { SOCKET_RECHECK_MS: '50', SOCKETS_PER_IDENTITY: String(CAP), POSITION_NOTICE_MS: '600000', PUBLIC_ORIGIN };

  before(async () => {
    ({ app, gen, prov } = await startOps({ env }));
    second = await startApp({ env });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close().catch(() => undefined)));
  });
  after(async () => {
    await second.close();
    await app.close();
  });

  const em = () => app.rt.orm.em.fork();
  const socket = async (headers: Record<string, string>, o: { origin?: string; on?: TestApp } = {}) => {
    const s = await connect(wsUrl((o.on ?? app).url), { headers, origin: o.origin });
    open.push(s);
    return s;
  };
  const code = () => `SV-${randomUUID().replace(/[^A-HJKMNP-TV-Z2-9]/gi, '').toUpperCase().slice(0, 6).padEnd(6, 'X')}`;

  describe('(a) actions check the endpoint permissions', () => {
    it('a central allowed /aceptacion and /estado-servicio only: its `position` is refused as PUT /posicion-tecnico is, its `progress` goes through', async () => {
      const crew = await makeCrew(em()); // endpoints: /aceptacion, /estado-servicio
      const http = await app.client.put('api/v3/posicion-tecnico', { headers: { 'x-apikey': crew.apiKey }, json: { dniTecnico: crew.technician.dni, latitud: 4.7, longitud: -74.05 } });
      expect(http.statusCode).to.equal(403);
      const s = await socket(crew.headers);
      s.send('position', { latitud: 4.7, longitud: -74.05 }, 'p');
      const refused = (await s.next('position.result')).data as { status: number; body: Body };
      expect(refused.status).to.equal(403);
      expect(refused.body).to.include({ status: false, msg: AUTH_MESSAGES.keyForbidden, requestedEndpoint: '/posicion-tecnico' });
      expect(refused.body.msg).to.equal((http.body as unknown as Body).msg);
      const [{ lat }] = await em().execute<Array<{ lat: number | null }>>(`select lat from technician where id = ?`, [crew.technician.id]);
      expect(lat, 'nothing moved').to.equal(crew.technician.lat ?? null).and.not.equal(4.7);
      s.send('progress', { id: randomUUID(), estado: 'EN_CAMINO' }, 'g');
      const progress = (await s.next('progress.result')).data as { status: number };
      expect(progress.status, 'allowed: the operation itself answers (unknown service)').to.not.equal(403);
    });
  });

  describe('(b) credentials re-checked while open', () => {
    it('a generator: INACTIVO closes it 4403, a changed password 4401', async () => {
      const g1 = await makeGenerator(em());
      const g2 = await makeGenerator(em());
      const [a, b] = [await socket(g1.headers), await socket(g2.headers)];
      const closed = Promise.all([a.closed(), b.closed()]);
      await em().nativeUpdate(ApiUser, { id: g1.user.id }, { status: 'INACTIVO' });
      await em().nativeUpdate(ApiUser, { id: g2.user.id }, { passwordSha256: '0'.repeat(64) });
      expect(await closed).to.deep.equal([4403, 4401]);
    });

    it('a central’s key socket whose /aceptacion permission is withdrawn closes 4403', async () => {
      const crew = await makeCrew(em());
      const s = await socket(crew.headers);
      const closed = s.closed();
      await em().nativeUpdate(ApiUser, { id: crew.user.id }, { endpoints: ['/estado-servicio'] });
      expect(await closed).to.equal(4403);
    });

    it('a central’s key socket whose technician leaves that central closes 4401; its colleague’s socket on the same key stays', async () => {
      const crew = await makeCrew(em());
      const colleague = await makeTechnician(em(), crew.central);
      const leaving = await socket(crew.headers);
      const staying = await socket({ 'x-apikey': crew.apiKey, 'x-dni-tecnico': colleague.dni });
      const closed = leaving.closed();
      const elsewhere = await makeCrew(em());
      await em().execute(`update technician set central_id = ? where id = ?`, [elsewhere.central.id, crew.technician.id]);
      expect(await closed).to.equal(4401);
      staying.send('ping', {}, 'still');
      await staying.next('pong');
    });

    it('an operator whose JWT expires closes 4401', async () => {
      const { operator } = await makeOperator(em());
      const jwt = await signOperatorToken(operator, app.rt.config.jwtSecret, '1s');
      const s = await socket({ authorization: `Bearer ${jwt}` });
      expect(await s.closed()).to.equal(4401);
    });

    it('the console’s socket token opens a socket that lives as long as the session, not as the token (D23)', async () => {
      const { operator } = await makeOperator(em());
      const sessionEnds = Math.floor(Date.now() / 1000) + 3600;
      const jwt = await signOperatorToken({ id: operator.id, username: operator.username, role: operator.role, sessionEnds }, app.rt.config.jwtSecret, '1s', { session: true });
      const s = await socket({ authorization: `Bearer ${jwt}` });
      const expired = Date.now() + 2500;
      // past the token's own second, with a re-check every 50 ms: the token is no good any more, the socket stays
      await waitFor(() => (Date.now() > expired ? true : undefined), 5000, 'the token’s expiry');
      expect((await refusal(wsUrl(app.url), { headers: { authorization: `Bearer ${jwt}` } })).status).to.equal(401);
      s.send('ping', {}, 'after');
      await s.next('pong', (f) => f.ref === 'after');
      // a session that ends closes it
      const short = await signOperatorToken({ id: operator.id, username: operator.username, role: operator.role, sessionEnds: Math.floor(Date.now() / 1000) + 1 }, app.rt.config.jwtSecret, '60s', { session: true });
      const t = await socket({ authorization: `Bearer ${short}` });
      expect(await t.closed()).to.equal(4401);
    });

    it('an operator deleted since its JWT was signed closes 4401', async () => {
      const jwt = await makeOperatorToken(em(), app.rt.config.jwtSecret);
      const s = await socket({ authorization: `Bearer ${jwt}` });
      const closed = s.closed();
      await em().nativeDelete(OperatorUser, { username: { $like: 'op-%' } });
      expect(await closed).to.equal(4401);
    });

    it('a customer socket whose tracking token expires closes 4401', async () => {
      const offer = await offerIn(em(), gen, 'ASIGNADA', prov, { codigoServicio: code() });
      const { token } = await issueTrackingToken(em(), offer);
      const s = await socket({ authorization: `Bearer ${token}` });
      const closed = s.closed();
      await em().execute(`update tracking_token set expires_at = now() - interval '1 second' where offer_uuid = ?`, [offer.uuid]);
      expect(await closed).to.equal(4401);
    });
  });

  describe('(c) sockets per identity', () => {
    it(`the ${CAP + 1}th socket of one identity is refused with 429, on any API process; closing one makes room`, async () => {
      const g = await makeGenerator(em());
      const held = [await socket(g.headers), await socket(g.headers), await socket(g.headers, { on: second })];
      for (const on of [app, second]) {
        const r = await refusal(wsUrl(on.url), { headers: g.headers });
        expect([r.status, r.body.message]).to.deep.equal([429, SOCKET_MESSAGES.tooMany(CAP)]);
        expect(Number(r.headers['retry-after'])).to.be.greaterThan(0);
      }
      // another identity is not counted with it
      await socket((await makeGenerator(em())).headers);
      const key = `${app.rt.config.queuePrefix}-{sockets}:generator:${g.user.id}`;
      await held[0].close();
      await waitFor(async () => ((await app.rt.redis.zcard(key)) === CAP - 1 ? true : undefined));
      await socket(g.headers);
      expect(loadConfig({}).socketsPerIdentity, 'the default').to.equal(20);
    });
  });

  describe('(d) Origin of browser (cookie) sockets', () => {
    it('the page’s cookie opens a socket only from PUBLIC_ORIGIN: another origin or none is 403', async () => {
      const offer = await offerIn(em(), gen, 'ASIGNADA', prov, { codigoServicio: code() });
      const { token } = await issueTrackingToken(em(), offer);
      const cookie = { cookie: `seguimiento=${token}` };
      for (const origin of ['https://evil.example', app.url, undefined]) {
        const r = await refusal(wsUrl(app.url), { headers: cookie, origin });
        expect([r.status, r.body], String(origin)).to.deep.equal([403, { status: false, msg: TRACKING_MESSAGES.originRefused }]);
      }
      await socket(cookie, { origin: PUBLIC_ORIGIN });
      // a header credential is no ambient one: no Origin needed
      await socket({ authorization: `Bearer ${token}` });
    });

    it('without PUBLIC_ORIGIN (development only: production requires it) the request’s own host', () => {
      const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
      expect(originAllowed(req({ host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000' }), null)).to.equal(true);
      expect(originAllowed(req({ host: '127.0.0.1:3000', origin: 'http://evil.example' }), null)).to.equal(false);
      expect(originAllowed(req({ host: '127.0.0.1:3000' }), null)).to.equal(false);
      expect(originAllowed(req({ host: '127.0.0.1:3000', origin: 'null' }), null)).to.equal(false);
      expect(originAllowed(req({ host: 'a', origin: 'https://seguimiento.example.com' }), PUBLIC_ORIGIN)).to.equal(true);
      expect(originAllowed(req({ host: 'a', origin: 'https://seguimiento.example.com.evil.example' }), PUBLIC_ORIGIN)).to.equal(false);
    });
  });

  describe('(e) position notices throttled, the refetch read-only', () => {
    const onTheWay = async (): Promise<{ offer: Offer; token: string }> => {
      const offer = await offerIn(em(), gen, 'EN_CAMINO', prov, { codigoServicio: code() });
      await em().execute(`update technician set busy_offer_uuid = ? where id = ?`, [offer.uuid, prov.technician.id]);
      return { offer, token: (await issueTrackingToken(em(), offer)).token };
    };
    afterEach(async () => em().execute(`update technician set busy_offer_uuid = null where id = ?`, [prov.technician.id]));

    it('ten position reports in a window make one notice to each customer socket', async () => {
      const { offer, token } = await onTheWay();
      const tabs = [await socket({ authorization: `Bearer ${token}` }), await socket({ authorization: `Bearer ${token}` })];
      for (let i = 0; i < 10; i++) {
        const r = await app.client.put('api/v3/posicion-tecnico', { headers: { 'x-apikey': prov.apiKey }, json: { dniTecnico: prov.technician.dni, latitud: 4.6 + i / 100, longitud: -74.07 } });
        expect(r.statusCode).to.equal(200);
      }
      // an event published after the reports: once it arrived, every earlier notice was routed
      const moved = await app.client.put('api/v3/estado-servicio', { headers: { 'x-apikey': prov.apiKey }, json: { id: offer.uuid, estado: 'EN_SITIO' } });
      expect(moved.statusCode).to.equal(200);
      for (const tab of tabs) {
        await tab.next('offer.state', (f) => (f.data as Body).estado === 'EN_SITIO');
        expect(tab.events('service.position').map((f) => (f.data as Body).latitud)).to.deep.equal([4.6]);
      }
    });

    it('the hub holds the latest notice of a window and delivers it when the window ends', async () => {
      const sent: string[] = [];
      const ws = { readyState: 1, bufferedAmount: 0, send: (p: Buffer) => sent.push(p.toString()), terminate: () => undefined };
      const hub = new Hub(1 << 20, pino({ level: 'silent' }), 40);
      const uuid = randomUUID();
      hub.add({ id: 'c', ws, identity: { kind: 'customer', offerUuid: uuid, tokenHash: 'h' }, alive: true, inflight: 0, offers: new Set() } as unknown as Client);
      for (const latitud of [1, 2, 3]) hub.route({ audience: { kind: 'customer', offerUuid: uuid }, event: 'service.position', data: { latitud } });
      expect(sent.map((t) => (JSON.parse(t) as { data: Body }).data.latitud)).to.deep.equal([1]);
      await waitFor(() => (sent.length === 2 ? true : undefined));
      expect((JSON.parse(sent[1]) as { data: Body }).data.latitud, 'the latest, not the second').to.equal(3);
      hub.prunePositionNotices(true);
    });

    it('GET /seguimiento/parcial writes nothing when nothing is unread; it marks a new message read once', async () => {
      const { offer, token } = await onTheWay();
      const part = () => app.client.get('seguimiento/parcial', { headers: { cookie: `seguimiento=${token}` }, responseType: 'text' });
      const writes = (sql: string[]) => sql.filter((q) => /^\s*(update|insert|delete)\b/i.test(q));
      const quiet = await statementsOf(async () => expect((await part()).statusCode).to.equal(200));
      expect(writes(quiet)).to.deep.equal([]);
      await em().execute(`insert into chat_message (offer_uuid, autor, texto) values (?, 'tecnico', 'ya llego')`, [offer.uuid]);
      const marking = await statementsOf(async () => expect((await part()).statusCode).to.equal(200));
      expect(writes(marking)).to.have.length(1);
      const after = await statementsOf(async () => expect((await part()).statusCode).to.equal(200));
      expect(writes(after)).to.deep.equal([]);
    });
  });
});
