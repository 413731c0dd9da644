/**
 * D22: the service on a Redis Cluster. Three masters (test/helpers/redisCluster.ts: the one `.ci/run` started, or
 * one this run starts); an API process and a worker process spawned with REDIS_CLUSTER_NODES, beside this run's own
 * app on the cluster too. The whole lifecycle goes through the cluster: POST /oferta, the distribution (worker
 * process) announcing the offer over the bus to a technician's socket on the other API process, the technician's
 * answer over that socket and a central's over HTTP, the window closed at its deadline, the acceptance notification
 * (6.1) once, the state notifications (D12) and the generator's assignment; then the limits and the nonces.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { connect as netConnect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Cluster } from 'ioredis';
import { Offer } from '../../src/db/entities/index.js';
import { QUEUE_NAMES } from '../../src/queues/registry.js';
import { keyspaces } from '../../src/queues/redis.js';
import { makeApiUser, makeGenerator, makeServiceType, type Generator } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { resetDb } from '../helpers/db.js';
import { clearQueues } from '../helpers/queues.js';
import { integrityHeaders } from '../helpers/integrity.js';
import { acceptanceBody, distributed, makeResponder, offerBody, type Responder } from '../helpers/offers.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { testRedisCluster, type TestRedisCluster } from '../helpers/redisCluster.js';
import { connect, wsUrl, type TestSocket } from '../helpers/sockets.js';
import { waitFor } from '../helpers/wait.js';
import { startWorkers } from '../../workers/index.js';

const SECRET = 'cluster-suite-integrity-secret-0123456789';
const METRICS_TOKEN = 'cluster-suite-metrics-token';

function entry(path: string): string {
  return fileURLToPath(new URL(`../../${path}`, import.meta.url));
}

/** A compiled entry point with `env` over the run's environment; resolves once its log line `ready` appeared. */
async function spawnReady(path: string, env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, [entry(path)], { env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const line = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${path} exited with ${code} before it was ready`)));
    lines.on('line', (l) => {
      if (ready.test(l)) resolve(l);
    });
  });
  return { child, line };
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

describe('Redis Cluster (D22): the lifecycle, the bus, the limits and the nonces on three masters', function () {
  this.timeout(60000);
  let cluster: TestRedisCluster;
  let app: TestApp;
  let api: ChildProcess | undefined;
  let worker: ChildProcess | undefined;
  let apiUrl: string;
  let rcv: Receiver;
  let gen: Generator;
  let near: Responder;
  let far: Responder;
  const prefix = `${process.env.QUEUE_PREFIX}_cl`;

  before(async () => {
    cluster = await testRedisCluster();
    rcv = await startReceiver();
    const env = {
      ...cluster.env,
      QUEUE_PREFIX: prefix,
      OFFER_RESPONSE_WINDOW_MS: '2500',
      WEBHOOK_TIMEOUT_MS: '3000',
      INTEGRITY_SECRET: SECRET,
      AUTH_FAIL_LIMIT_ID: '3',
      METRICS_TOKEN: METRICS_TOKEN,
    };
    app = await startApp({ env });
    await resetDb(app.rt.orm);
    await clearQueues(app.rt);
    const fork = () => app.rt.orm.em.fork();
    await makeServiceType(fork(), { id: 1 });
    gen = await makeGenerator(fork(), { urlApi: rcv.url, apiEndpoint: { respuesta: '/respuesta', estado: '/estado' } });
    near = await makeResponder(fork(), { rate: 4 });
    far = await makeResponder(fork(), { rate: 3 });
    // the API process listens on an ephemeral port and says which; the worker process says when its workers run
    const spawned = await spawnReady('src/main/web.js', { ...env, PORT: '0' }, /"msg":"api listening"/);
    api = spawned.child;
    apiUrl = `http://127.0.0.1:${/"port":(\d+)/.exec(spawned.line)![1]}`;
    worker = (await spawnReady('workers/main.js', env, /"msg":"workers running"/)).child;
  });
  after(async () => {
    await stop(worker);
    await stop(api);
    if (app) {
      await clearQueues(app.rt);
      await app.close();
    }
    await rcv?.close();
  });

  it('every process is a cluster client; each queue’s keys share one slot, and the queues lie on more than one master', async () => {
    expect(app.rt.redis).to.be.instanceOf(Cluster);
    // a job on each queue makes its keys exist
    for (const q of QUEUE_NAMES) await app.rt.queues.get(q).add('probe', {}, { delay: 3_600_000, jobId: `probe-${randomUUID()}` });
    const slotsOf = new Map<string, Set<number>>();
    const mastersOf = new Map<string, Set<string>>();
    for (const node of keyspaces(app.rt.redis)) {
      for (let cursor = '0'; ; ) {
        const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        for (const key of keys) {
          const queue = QUEUE_NAMES.find((q) => key.startsWith(`${prefix}:{${q}}:${q}:`));
          if (!queue) continue;
          const slot = Number(await node.cluster('KEYSLOT', key));
          slotsOf.set(queue, (slotsOf.get(queue) ?? new Set()).add(slot));
          mastersOf.set(queue, (mastersOf.get(queue) ?? new Set()).add(`${node.options.host}:${node.options.port}`));
        }
        if ((cursor = next) === '0') break;
      }
    }
    expect([...slotsOf.keys()]).to.have.members([...QUEUE_NAMES]);
    for (const q of QUEUE_NAMES) expect([...slotsOf.get(q)!], q).to.have.length(1);
    expect(new Set([...mastersOf.values()].map((s) => [...s][0])).size, 'masters holding queues').to.be.greaterThan(1);
    await clearQueues(app.rt);
  });

  it('offer → distribution → a socket’s answer and an HTTP one → the window closes → one 6.1 → state notifications → ASIGNADA', async () => {
    // the technician's socket is on the spawned API process: the worker's announcement crosses the cluster's bus
    const tech: TestSocket = await connect(wsUrl(apiUrl), { headers: { 'x-apikey': near.key, 'x-dni-tecnico': near.technician.dni } });
    const genSocket: TestSocket = await connect(wsUrl(app.url), { headers: gen.headers });
    try {
      const body = offerBody();
      const uuid = body.uuid as string;
      const of = (f: { data: unknown }) => (f.data as { uuid?: string }).uuid === uuid;
      const posted = await app.client.post('api/v3/oferta', { json: body, headers: { authorization: gen.auth } });
      expect(posted.statusCode).to.equal(200);

      await tech.next('offer.new', of, 10000);
      tech.send('offer.respond', { id: uuid, tiempoLlegadaSitio: 7 }, 'cl');
      const answered = await tech.next('offer.respond.result', (f) => f.ref === 'cl');
      expect((answered.data as { status: number }).status).to.equal(200);
      const put = await app.client.put('api/v3/aceptacion', { json: acceptanceBody(uuid, far, { tiempoLlegadaSitio: 20 }), headers: { 'x-apikey': far.key } });
      expect(put.statusCode).to.equal(200);
      expect((await genSocket.next('offer.response', of)).event).to.equal('offer.response');

      // the deadline: the worker process closes the window, the 6.1 goes once to the generator
      const accepted = await genSocket.next('offer.accepted', of, 15000);
      expect((accepted.data as { accepted: { time: number } }).accepted.time).to.equal(7);
      await waitFor(() => rcv.calls.some((c) => c.path === '/respuesta' && c.body.id === uuid) || null, 10000, 'the 6.1');
      const state = async () => (await app.rt.orm.em.fork().findOne(Offer, { uuid }))?.state;
      expect(await state()).to.equal('ACEPTADA');

      const assigned = await app.client.post('api/v3/asignacion', { headers: gen.headers, json: { uuid } });
      expect(assigned.statusCode).to.equal(200);
      await waitFor(
        () => {
          const states = rcv.calls.filter((c) => c.path === '/estado' && c.body.id === uuid).map((c) => c.body.estado);
          return states.includes('ASIGNADA') ? states : null;
        },
        10000,
        'the state notifications',
      );
      expect(rcv.calls.filter((c) => c.path === '/respuesta' && c.body.id === uuid), 'the 6.1, once').to.have.length(1);
      expect(rcv.calls.find((c) => c.path === '/respuesta')!.body.dniTecnico).to.equal(near.technician.dni);
      expect(await state()).to.equal('ASIGNADA');
    } finally {
      await tech.close();
      await genSocket.close();
    }
  });

  it('the failed-authentication limit counts on the cluster, across processes: the fourth wrong password of one username is 429', async () => {
    // a user that never authenticated from here (a success trusts the client's IP for that user)
    const { user } = await makeApiUser(app.rt.orm.em.fork());
    const wrong = `Basic ${Buffer.from(`${user.username}:not-the-password`).toString('base64')}`;
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) {
      // alternating processes: the count is the cluster's, not a process's
      const res = await (i % 2 ? app.client : app.client.extend({ prefixUrl: apiUrl })).post('api/v3/oferta', { json: offerBody(), headers: { authorization: wrong } });
      codes.push(res.statusCode);
    }
    expect(codes).to.deep.equal([401, 401, 401, 429]);
  });

  it('a nonce used on one API process is refused on the other (nonces on the cluster)', async () => {
    const target = '/api/v3/tracking/track/public';
    const body = JSON.stringify({ token: 'x'.repeat(43) });
    const headers = { 'content-type': 'application/json', ...integrityHeaders({ secret: SECRET, method: 'POST', target, body }) };
    const first = await app.client.post(target.slice(1), { body, headers });
    expect((first.body as unknown as { msg: string }).msg).to.equal('EL TOKEN DE SEGUIMIENTO NO ES VÁLIDO O YA EXPIRÓ');
    const replay = await app.client.extend({ prefixUrl: apiUrl }).post(target.slice(1), { body, headers });
    expect(replay.statusCode).to.equal(401);
    expect((replay.body as unknown as { msg: string }).msg).to.equal('ESTA SOLICITUD YA FUE RECIBIDA (NONCE REPETIDO)');
  });

  it('GET /metrics reads the queues and the other processes’ heartbeats and figures from the cluster', async () => {
    const text = await waitFor(
      async () => {
        const res = await app.client.get('metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` }, responseType: 'text' });
        expect(res.statusCode).to.equal(200);
        return /broker_process_heartbeat_seconds\{role="worker"/.test(res.body) ? res.body : null;
      },
      10000,
      'the worker process’s heartbeat',
    );
    expect(text).to.match(/broker_queue_jobs\{queue="offer-evaluation",state="waiting"\} \d+/);
    expect(text).to.match(/broker_process_heartbeat_seconds\{role="api"/);
    // the fullest master's memory (each master holds part of the keys)
    expect(Number(/^broker_redis_memory_used_bytes (\d+)/m.exec(text)?.[1] ?? 0)).to.be.greaterThan(0);
  });
});

describe('Redis Cluster (D22): a master restarted empty', function () {
  this.timeout(60000);
  let cluster: TestRedisCluster;
  let app: TestApp;
  let gen: Generator;

  before(async () => {
    cluster = await testRedisCluster({ own: true });
    app = await startApp({ env: { ...cluster.env, QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_clr` }, workers: false });
    await resetDb(app.rt.orm);
    await clearQueues(app.rt);
    app.workers = await startWorkers(app.rt, { queues: ['offer-distribution'] });
    await makeServiceType(app.rt.orm.em.fork(), { id: 1 });
    gen = await makeGenerator(app.rt.orm.em.fork());
    await makeResponder(app.rt.orm.em.fork());
  });
  after(async () => {
    await app.workers?.close();
    await app.close();
  });

  const post = async () => {
    const body = offerBody();
    const res = await app.client.post('api/v3/oferta', { json: body, headers: { authorization: gen.auth } });
    expect(res.statusCode).to.equal(200);
    return body.uuid as string;
  };

  it('the queue on it works again, with no process restarted: the next offer is distributed', async () => {
    await distributed(app, await post());
    // the master that holds the distribution queue's slot
    const redis = app.rt.redis as Cluster;
    const slot = Number(await keyspaces(redis)[0].cluster('KEYSLOT', `${app.rt.queues.prefixOf('offer-distribution')}:offer-distribution:wait`));
    const [host, port] = String(redis.slots[slot][0]).split(':');
    const master = cluster.nodes.find((n) => n.host === host && n.port === Number(port))!;
    expect(master, 'a master of this cluster').to.not.equal(undefined);

    await cluster.restartEmpty(master);
    const uuid = await waitFor(() => post().catch(() => null), 20000, 'POST /oferta answered 200 again');
    await distributed(app, uuid, 20000);
  });
});

describe('Redis Cluster (D22): behind a proxy per master (REDIS_CLUSTER_NAT_MAP)', function () {
  this.timeout(60000);
  let cluster: TestRedisCluster;
  let app: TestApp;
  const proxies: Array<{ server: Server; port: number; connections: number; sockets: Set<Socket> }> = [];

  /** A TCP proxy to `target` on a free port, counting its connections. */
  async function proxyTo(target: { host: string; port: number }) {
    const p = { server: createServer(), port: 0, connections: 0, sockets: new Set<Socket>() };
    p.server.on('connection', (client) => {
      p.connections++;
      const upstream = netConnect(target.port, target.host);
      for (const s of [client, upstream]) {
        p.sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => p.sockets.delete(s));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => p.server.listen(0, '127.0.0.1', resolve));
    p.port = (p.server.address() as AddressInfo).port;
    return p;
  }

  before(async () => {
    cluster = await testRedisCluster();
    for (const node of cluster.nodes) proxies.push(await proxyTo(node));
    const natMap = cluster.nodes.map((n, i) => `${n.host}:${n.port}=127.0.0.1:${proxies[i].port}`).join(',');
    app = await startApp({
      env: {
        REDIS_CLUSTER_NODES: proxies.map((p) => `127.0.0.1:${p.port}`).join(','),
        REDIS_CLUSTER_NAT_MAP: natMap,
        QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_clnat`,
      },
    });
    await resetDb(app.rt.orm);
    await clearQueues(app.rt);
    app.workers = await startWorkers(app.rt, { queues: ['offer-distribution'] });
    await makeServiceType(app.rt.orm.em.fork(), { id: 1 });
  });
  after(async () => {
    await app.workers?.close();
    if (app) {
      await clearQueues(app.rt);
      await app.close();
    }
    for (const p of proxies) {
      for (const s of p.sockets) s.destroy();
      await new Promise((resolve) => p.server.close(resolve));
    }
  });

  it('every connection goes through the proxies (a fault test can cut them), and an offer is stored and distributed', async () => {
    const gen = await makeGenerator(app.rt.orm.em.fork());
    await makeResponder(app.rt.orm.em.fork());
    const body = offerBody();
    const res = await app.client.post('api/v3/oferta', { json: body, headers: { authorization: gen.auth } });
    expect(res.statusCode).to.equal(200);
    await distributed(app, body.uuid as string);
    const ports = new Set(proxies.map((p) => p.port));
    const reached = (app.rt.redis as Cluster).nodes().map((n) => n.options.port);
    expect(reached.length).to.be.greaterThan(0);
    for (const port of reached) expect(ports.has(port!), `node at ${port} is a proxy`).to.equal(true);
    for (const p of proxies) expect(p.connections, `proxy ${p.port}`).to.be.greaterThan(0);
  });
});
