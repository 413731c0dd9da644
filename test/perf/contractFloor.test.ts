/**
 * Issue 32, ISS32-10: the contract floor (bench/contract-duties.ts) is the bound the burst's half of target 2 is
 * measured against, so it must really do the contract's duties, or the bound would be too low. Its POST /oferta
 * middleware refuses what the service refuses (credentials, the failed-authentication limit read before the
 * password, the quota, the schema, unstorable text, an unknown type), and its statements write each move's audit row,
 * insert an offer once and expire only an unanswered offer whose time is up. Since ISS32-16 it is also target 1's
 * bound, so its closing must do the contract's part too: a central's answer taken only by its key, while the offer is
 * open and was sent to it, once; the best answer's 6.1 delivery written with the closing; the 6.1 signed and its
 * attempt recorded. Against the real PostgreSQL and Redis, and a real receiver for the 6.1.
 */
import { expect } from 'chai';
import got from 'got';
import { Redis } from 'ioredis';
import { createHmac } from 'node:crypto';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import {
  CF_ACCEPT,
  CF_CLOSE_OFFER,
  CF_EXPIRE_OFFER,
  CF_INSERT_OFFER,
  CONTRACT_CENTRAL,
  CONTRACT_GENERATOR,
  CONTRACT_USER,
  FAIL_LIMIT,
  cfSendAcceptance,
  contractAcceptance,
  contractDuties,
  contractHeaders,
  type CfAcceptance,
} from '../../bench/contract-duties.js';
import { offerTemplate } from '../../bench/floor.js';
import { createPipelineFloorTables } from '../../bench/pipeline-floor.js';
import { deleteKeys } from '../../bench/cleanup.js';
import { OFFER_MESSAGES } from '../../src/api/offers/createOffer.js';
import { startReceiver } from '../helpers/receiver.js';

const PREFIX = `test-cf-${process.pid}`;
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('the contract floor (ISS32-10): the contract’s duties, each the plain way', () => {
  let pool: pg.Pool;
  let redis: Redis;
  const servers: Server[] = [];
  let passed = 0;

  /** A server with `duty` in front of a handler that counts what got through. */
  async function serve(duty: Koa.Middleware): Promise<string> {
    const app = new Koa();
    app.use(bodyParser());
    app.use(duty);
    app.use((ctx) => {
      passed++;
      ctx.body = { status: true, user: (ctx.state.user as { id: number } | undefined)?.id };
    });
    const server = createServer(app.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  }

  /** A server with the POST /oferta duties; its own Redis keys. */
  const start = (keys: string) => serve(contractDuties(pool, redis, `${PREFIX}-${keys}`));

  const post = (url: string, body: unknown, headers: Record<string, string> = contractHeaders()) =>
    fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (res) => ({
      status: res.status,
      body: (await res.json()) as Record<string, unknown>,
    }));

  before(async () => {
    pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
    await createPipelineFloorTables(pool, { centralUrl: 'http://127.0.0.1:9/', duties: true, generatorUrl: 'http://127.0.0.1:9/respuesta' });
    redis = new Redis(process.env.REDIS_URL!);
  });
  beforeEach(() => {
    passed = 0;
  });
  after(async () => {
    for (const s of servers) await new Promise((r) => s.close(r));
    await pool.query('drop table if exists pf_attempt, pf_delivery, pf_transition, pf_response, pf_recipient, pf_offer, pf_technician, pf_central, pf_api_user, pf_service_type cascade');
    await pool.end();
    await deleteKeys(redis, PREFIX);
    redis.disconnect();
  });

  it('lets a valid offer with the generator’s credentials through, and nothing else', async () => {
    const url = await start('valid');
    expect((await post(url, offerTemplate())).status).to.equal(200);
    expect(passed).to.equal(1);

    const missing = await post(url, offerTemplate(), {});
    expect(missing).to.deep.equal({ status: 401, body: { status: false, message: 'No se han brindado las credenciales de acceso.' } });
    const wrong = await post(url, offerTemplate(), { authorization: basic(CONTRACT_USER.username, 'not-the-password') });
    expect(wrong).to.deep.equal({ status: 401, body: { status: false, message: 'Las credenciales de acceso no son correctas.' } });
    const noUuid = { ...offerTemplate(), uuid: undefined };
    expect(await post(url, noUuid)).to.deep.equal({ status: 400, body: { status: false, msg: OFFER_MESSAGES.uuidMissing } });
    expect((await post(url, { ...offerTemplate(), observaciones: 'a\u0000b' })).status).to.equal(400);
    expect((await post(url, { ...offerTemplate(), tipoServicio: '99' })).status).to.equal(400);
    expect(passed).to.equal(1);
  });

  it('reads the failed-authentication limit before the password: a blocked identity is refused even with the right one', async () => {
    const url = await start('limit');
    for (let i = 0; i < FAIL_LIMIT; i++) expect((await post(url, offerTemplate(), { authorization: basic(CONTRACT_USER.username, `wrong-${i}`) })).status).to.equal(401);
    expect((await post(url, offerTemplate())).status).to.equal(429);
    expect(passed).to.equal(0);
  });

  it('counts the generator’s quota per minute and refuses beyond it', async () => {
    await pool.query('update pf_api_user set offers_per_minute = 2 where username = $1', [CONTRACT_USER.username]);
    try {
      const url = await start('quota'); // a new middleware: no cached user
      // the quota counts per clock minute: three requests a few ms apart must not straddle a minute's end
      const toNextMinute = 60_000 - (Date.now() % 60_000);
      if (toNextMinute < 2_000) await new Promise((r) => setTimeout(r, toNextMinute + 10));
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await post(url, offerTemplate())).status);
      expect(statuses).to.deep.equal([200, 200, 429]);
      expect(passed).to.equal(2);
    } finally {
      await pool.query('update pf_api_user set offers_per_minute = 100000000 where username = $1', [CONTRACT_USER.username]);
    }
  });

  it('inserts an offer once with its audit row, closes it unanswered with another and expires it only when its time is up', async () => {
    const uuid = '0b8f6f7e-3c1a-4d2b-9e5f-1a2b3c4d5e6f';
    const insert = (maxOpenMs: number) => pool.query(CF_INSERT_OFFER, [uuid, offerTemplate(), -74.08, 4.65, 0, maxOpenMs, 'generator:1', 1]);
    expect((await insert(60_000)).rowCount).to.equal(1);
    expect((await insert(60_000)).rowCount).to.equal(0); // D3
    const closed = await pool.query<{ state: string }>(CF_CLOSE_OFFER, [uuid]);
    expect(closed.rows.map((r) => r.state)).to.deep.equal(['SIN_RESPUESTA']);
    expect((await pool.query(CF_EXPIRE_OFFER, [uuid])).rowCount).to.equal(0); // its time is not up
    await pool.query(`update pf_offer set expires_at = now() where uuid = $1`, [uuid]);
    expect((await pool.query(CF_EXPIRE_OFFER, [uuid])).rowCount).to.equal(1);
    const trail = await pool.query<{ from_state: string | null; to_state: string }>('select from_state, to_state from pf_transition where offer_uuid = $1 order by id', [uuid]);
    expect(trail.rows).to.deep.equal([
      { from_state: null, to_state: 'ABIERTA' },
      { from_state: 'ABIERTA', to_state: 'SIN_RESPUESTA' },
      { from_state: 'SIN_RESPUESTA', to_state: 'EXPIRADA' },
    ]);
  });

  it('takes a central’s answer by its key, only while the offer is open and was sent to it, once, and closes it ACEPTADA with that answer’s 6.1', async () => {
    const uuid = '5c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
    const generator = (await pool.query<{ id: number }>('select id from pf_api_user where username = $1', [CONTRACT_USER.username])).rows[0].id;
    await pool.query(CF_INSERT_OFFER, [uuid, offerTemplate(), -74.08, 4.65, 60_000, 120_000, `generator:${generator}`, generator]);
    const accept = async (key: string, dni: string, minutes: number) => (await pool.query<{ known: boolean; taken: boolean }>(CF_ACCEPT, [key, uuid, dni, minutes])).rows[0];

    expect(await accept('not-a-key', 'BENCH-T1', 10)).to.deep.equal({ known: false, taken: false });
    expect(await accept(CONTRACT_CENTRAL.apiKey, 'BENCH-T1', 10)).to.deep.equal({ known: true, taken: false }); // D20: never sent to it
    const central = (await pool.query<{ id: number }>('select id from pf_central where api_key = $1', [CONTRACT_CENTRAL.apiKey])).rows[0].id;
    await pool.query(`insert into pf_recipient (offer_uuid, central_id, technician_ids) values ($1, $2, '{}')`, [uuid, central]);
    expect(await accept(CONTRACT_CENTRAL.apiKey, 'BENCH-T2', 12)).to.deep.equal({ known: true, taken: true });
    expect(await accept(CONTRACT_CENTRAL.apiKey, 'BENCH-T3', 7)).to.deep.equal({ known: true, taken: false }); // one answer per central

    const closed = (await pool.query(CF_CLOSE_OFFER, [uuid])).rows;
    expect(closed).to.have.length(1);
    const [row] = closed as Array<{ state: string; deliveryId: string; url: string; body: Record<string, unknown>; apiKey: string; secret: string }>;
    expect(row).to.include({ state: 'ACEPTADA', url: 'http://127.0.0.1:9/respuesta', apiKey: CONTRACT_GENERATOR.apiKey, secret: CONTRACT_GENERATOR.secret });
    expect(row.body).to.include({ id: uuid, dniPrestador: CONTRACT_CENTRAL.nit, dniTecnico: 'BENCH-T2', tiempoLlegadaSitio: 12 });
    const delivery = await pool.query('select kind, state, offer_uuid from pf_delivery where id = $1', [row.deliveryId]);
    expect(delivery.rows).to.deep.equal([{ kind: 'acceptance', state: 'sending', offer_uuid: uuid }]);
    expect(await accept(CONTRACT_CENTRAL.apiKey, 'BENCH-T4', 5)).to.deep.equal({ known: true, taken: false }); // closed
    expect((await pool.query(CF_CLOSE_OFFER, [uuid])).rows).to.deep.equal([]); // closed once
    const trail = await pool.query<{ to_state: string }>('select to_state from pf_transition where offer_uuid = $1 order by id', [uuid]);
    expect(trail.rows.map((r) => r.to_state)).to.deep.equal(['ABIERTA', 'ACEPTADA']);
  });

  it('answers a central’s PUT /aceptacion: 401 without or with an unknown key, 400 for a bad body, 409 for an offer it cannot answer, 200 once', async () => {
    const uuid = '7e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b';
    await pool.query(CF_INSERT_OFFER, [uuid, offerTemplate(), -74.08, 4.65, 60_000, 120_000, 'generator:1', 1]);
    const url = `${await serve(contractAcceptance(pool))}aceptacion`;
    const put = (body: unknown, key?: string) =>
      fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json', ...(key ? { 'x-apikey': key } : {}) }, body: JSON.stringify(body) }).then((res) => res.status);
    const answer = { id: uuid, dniPrestador: CONTRACT_CENTRAL.nit, dniTecnico: 'BENCH-T1', tiempoLlegadaSitio: 10 };

    expect(await put(answer)).to.equal(401);
    expect(await put(answer, 'not-a-key')).to.equal(401);
    expect(await put({ ...answer, id: 'not-a-uuid' }, CONTRACT_CENTRAL.apiKey)).to.equal(400);
    expect(await put({ ...answer, tiempoLlegadaSitio: 0 }, CONTRACT_CENTRAL.apiKey)).to.equal(400);
    expect(await put(answer, CONTRACT_CENTRAL.apiKey)).to.equal(409); // never sent to it
    await pool.query(`insert into pf_recipient (offer_uuid, central_id, technician_ids) select $1, id, '{}' from pf_central where api_key = $2`, [uuid, CONTRACT_CENTRAL.apiKey]);
    expect(await put(answer, CONTRACT_CENTRAL.apiKey)).to.equal(200);
    expect(await put(answer, CONTRACT_CENTRAL.apiKey)).to.equal(409); // once
    expect(passed).to.equal(0); // none went on to the offers' handler
    expect((await pool.query('select count(*)::int as n from pf_response where offer_uuid = $1', [uuid])).rows[0].n).to.equal(1);
  });

  it('sends the 6.1 with the generator’s key, signed (D5), and records its attempt with the key masked', async () => {
    const receiver = await startReceiver();
    try {
      const uuid = '6d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a';
      await pool.query(CF_INSERT_OFFER, [uuid, offerTemplate(), -74.08, 4.65, 60_000, 120_000, 'generator:1', 1]);
      const deliveryId = (
        await pool.query<{ id: string }>(`insert into pf_delivery (offer_uuid, central_id, kind, url, body, state) values ($1, 1, 'acceptance', 'x', '{}', 'sending') returning id`, [uuid])
      ).rows[0].id;
      const a: CfAcceptance = {
        deliveryId,
        url: `${receiver.url}/respuesta`,
        body: { id: uuid, dniTecnico: 'BENCH-T2', tiempoLlegadaSitio: 12 },
        apiKey: CONTRACT_GENERATOR.apiKey,
        secret: CONTRACT_GENERATOR.secret,
      };
      expect(await cfSendAcceptance(pool, got.extend({ retry: { limit: 0 } }), a)).to.equal(true);

      expect(receiver.calls).to.have.length(1);
      const [{ method, path, headers, raw }] = receiver.calls;
      expect([method, path]).to.deep.equal(['PUT', '/respuesta']);
      expect(JSON.parse(raw)).to.deep.equal(a.body);
      expect(headers['x-apikey']).to.equal(CONTRACT_GENERATOR.apiKey);
      const timestamp = String(headers['x-timestamp']);
      expect(headers['x-signature']).to.equal(createHmac('sha256', CONTRACT_GENERATOR.secret).update(`${timestamp}.${raw}`).digest('hex'));
      const attempts = await pool.query<{ status: number; request_headers: Record<string, string>; state: string }>(
        'select a.status, a.request_headers, d.state from pf_attempt a join pf_delivery d on d.id = a.delivery_id where d.id = $1',
        [deliveryId],
      );
      expect(attempts.rows).to.have.length(1);
      expect(attempts.rows[0]).to.include({ status: 200, state: 'sent' });
      expect(attempts.rows[0].request_headers['x-apikey']).to.equal('(redacted)');
    } finally {
      await receiver.close();
    }
  });
});
