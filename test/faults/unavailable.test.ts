/**
 * Issue 30 item 1 (D21): PostgreSQL or Redis away is answered 503 in the route's envelope with
 * `SERVICIO TEMPORALMENTE NO DISPONIBLE` and Retry-After, never 500. The drivers' errors are recognised
 * (src/outage.ts); a service whose PostgreSQL is cut (a TCP proxy, test/helpers/tcpProxy.ts) answers so at once.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { errorAnswer } from '../../src/api/errorTable.js';
import { UNAVAILABLE_MESSAGE, isOutage } from '../../src/outage.js';
import { makeServiceType } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { makeGenerator, makeResponder, offerBody } from '../helpers/offers.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcpProxy.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('PostgreSQL or Redis away: 503 with Retry-After, never 500 (issue 30, D21)', () => {
  describe('the drivers’ errors', () => {
    const outages: Array<[string, unknown]> = [
      ['a refused PostgreSQL connection', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
      ['a reset connection', withCode('read ECONNRESET', 'ECONNRESET')],
      ['the pool’s wait', Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' })],
      ['a connection ended', new Error('Connection terminated unexpectedly')],
      ['a connect timeout', new Error('timeout exceeded when trying to connect')],
      ['PostgreSQL shutting down (57P01)', withCode('terminating connection due to administrator command', '57P01')],
      ['PostgreSQL starting (57P03)', withCode('the database system is starting up', '57P03')],
      ['a connection exception class (08006)', withCode('connection failure', '08006')],
      ['MikroORM’s wrapper around a reset', Object.assign(new Error('database error'), { name: 'DriverException', cause: withCode('read ECONNRESET', 'ECONNRESET') })],
      ['ioredis without its connection', new Error("Stream isn't writeable and enableOfflineQueue options is false")],
      ['ioredis’ command timeout', new Error('Command timed out')],
      ['ioredis’ retries', Object.assign(new Error('Reached the max retries per request limit (which is 1).'), { name: 'MaxRetriesPerRequestError' })],
      ['a closed connection', new Error('Connection is closed.')],
      // a Redis Cluster's client (D22): its masters cut away (the cluster fault test, outageCluster.test.ts)
      ['a cluster client that cannot refresh its slots', Object.assign(new Error('Failed to refresh slots cache.'), { name: 'ClusterAllFailedError' })],
      ['a cluster client without its connections', new Error("Cluster isn't ready and enableOfflineQueue options is false")],
      ['a cluster client whose seed nodes refuse', new Error('None of startup nodes is available')],
      ['a cluster down', new Error('CLUSTERDOWN The cluster is down')],
    ];
    for (const [name, err] of outages) {
      it(`${name} is an outage`, () => expect(isOutage(err)).to.equal(true));
    }
    for (const [name, err] of [
      ['a programming error', new TypeError('x is undefined')],
      ['a unique violation', withCode('duplicate key value violates unique constraint', '23505')],
      ['a malformed statement', withCode('syntax error at or near "selec"', '42601')],
      ['nothing', undefined],
    ] as Array<[string, unknown]>) {
      it(`${name} is not`, () => expect(isOutage(err)).to.equal(false));
    }

    it('is answered 503 in each envelope, with Retry-After', () => {
      const err = withCode('connect ECONNREFUSED 127.0.0.1:6379', 'ECONNREFUSED');
      for (const envelope of ['controller', 'data', 'key', 'system'] as const) {
        const a = errorAnswer(err, envelope)!;
        expect(a.status).to.equal(503);
        expect(Number(a.headers['Retry-After'])).to.be.greaterThan(0);
        const text = a.body.msg ?? a.body.data ?? a.body.message;
        expect(text, envelope).to.equal(UNAVAILABLE_MESSAGE);
      }
      expect(errorAnswer(new TypeError('x'), 'controller')).to.equal(null);
    });
  });

  describe('a service whose PostgreSQL is cut', function () {
    this.timeout(30000);
    let proxy: TcpProxy;
    let app: TestApp;
    let gen: Awaited<ReturnType<typeof makeGenerator>>;
    let central: Awaited<ReturnType<typeof makeResponder>>;

    before(async () => {
      const db = new URL(process.env.DATABASE_URL!);
      proxy = await startTcpProxy({ port: Number(db.port || 5432) });
      db.host = `127.0.0.1:${proxy.port}`;
      app = await startApp({ env: { DATABASE_URL: db.toString() } });
      await makeServiceType(app.rt.orm.em.fork(), { id: 1 }).catch(() => undefined);
      gen = await makeGenerator(app.rt.orm.em.fork());
      central = await makeResponder(app.rt.orm.em.fork());
      // the pool holds connections: the cut resets them too
      expect((await app.client.get('health/ready')).statusCode).to.equal(200);
      proxy.cut();
    });
    after(async () => {
      proxy?.restore();
      await app?.close();
      await proxy?.close();
    });

    it('POST /oferta: 503 in the system envelope of its Basic check (or its own), with Retry-After, not 500', async () => {
      const res = await app.client.post('api/v3/oferta', { json: offerBody(), headers: { authorization: gen.auth } });
      expect(res.statusCode).to.equal(503);
      expect(Number(res.headers['retry-after'])).to.be.greaterThan(0);
      const body = res.body as unknown as Record<string, unknown>;
      expect(body.msg ?? body.message).to.equal(UNAVAILABLE_MESSAGE);
    });

    it('PUT /aceptacion: 503 in the key envelope, with Retry-After', async () => {
      const res = await app.client.put('api/v3/aceptacion', {
        json: { id: randomUUID(), dniPrestador: central.central.nit, dniTecnico: central.technician.dni },
        headers: { 'x-apikey': central.key },
      });
      expect(res.statusCode).to.equal(503);
      expect(res.headers['retry-after']).to.be.a('string');
      expect(res.body).to.include({ status: false, msg: UNAVAILABLE_MESSAGE });
    });

    it('GET /health/ready says 503 naming postgres; the process is still serving, and serves again once PostgreSQL is back', async () => {
      const ready = await app.client.get('health/ready');
      expect(ready.statusCode).to.equal(503);
      expect((ready.body as unknown as { missing: string[] }).missing).to.include('postgres');
      proxy.restore();
      const res = await app.client.post('api/v3/oferta', { json: offerBody(), headers: { authorization: gen.auth } });
      expect(res.statusCode).to.equal(200);
      expect(app.logs.filter((l) => l.msg === 'unhandled error'), 'unhandled errors (500)').to.deep.equal([]);
    });
  });
});
