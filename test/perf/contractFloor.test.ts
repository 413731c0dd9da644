/**
 * Issue 32, ISS32-10: the contract floor (bench/contract-duties.ts) is the bound the burst's half of target 2 is
 * measured against, so it must really do the contract's duties, or the bound would be too low. Its POST /oferta
 * middleware refuses what the service refuses (credentials, the failed-authentication limit read before the
 * password, the quota, the schema, unstorable text, an unknown type), and its statements write each move's audit row,
 * insert an offer once and expire only an unanswered offer whose time is up. Against the real PostgreSQL and Redis.
 */
import { expect } from 'chai';
import { Redis } from 'ioredis';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { CF_CLOSE_OFFER, CF_EXPIRE_OFFER, CF_INSERT_OFFER, CONTRACT_USER, FAIL_LIMIT, contractDuties, contractHeaders } from '../../bench/contract-duties.js';
import { offerTemplate } from '../../bench/floor.js';
import { createPipelineFloorTables } from '../../bench/pipeline-floor.js';
import { deleteKeys } from '../../bench/cleanup.js';
import { OFFER_MESSAGES } from '../../src/api/offers/createOffer.js';

const PREFIX = `test-cf-${process.pid}`;
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('the contract floor (ISS32-10): the contract’s duties, each the plain way', () => {
  let pool: pg.Pool;
  let redis: Redis;
  const servers: Server[] = [];
  let passed = 0;

  /** A server with the duties in front of a handler that counts what got through; its own Redis keys. */
  async function start(keys: string): Promise<string> {
    const app = new Koa();
    app.use(bodyParser());
    app.use(contractDuties(pool, redis, `${PREFIX}-${keys}`));
    app.use((ctx) => {
      passed++;
      ctx.body = { status: true, user: (ctx.state.user as { id: number }).id };
    });
    const server = createServer(app.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  }

  const post = (url: string, body: unknown, headers: Record<string, string> = contractHeaders()) =>
    fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (res) => ({
      status: res.status,
      body: (await res.json()) as Record<string, unknown>,
    }));

  before(async () => {
    pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
    await createPipelineFloorTables(pool, { centralUrl: 'http://127.0.0.1:9/', duties: true });
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
    const insert = (maxOpenMs: number) => pool.query(CF_INSERT_OFFER, [uuid, offerTemplate(), -74.08, 4.65, 0, maxOpenMs, 'generator:1']);
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
});
