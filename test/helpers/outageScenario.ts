/**
 * Issue 30, items 1, 2, 4 and 5 (D21, D22): Redis and PostgreSQL go away under a steady load of answered offers —
 * the fault scenario, run by test/faults/outage.test.ts on one Redis and by test/faults/outageCluster.test.ts on a
 * three-master Redis Cluster (a `RedisTopology` says how to start, break and restore each).
 *
 * The service runs as child processes (an API process and a worker process) on a database of this test's own,
 * reaching PostgreSQL and Redis (a throwaway redis-server, or the masters of a cluster of the run's own, no
 * persistence) through TCP proxies (test/helpers/tcpProxy.ts; on a cluster one per master, with
 * REDIS_CLUSTER_NAT_MAP sending the client's connection to each master through its proxy). Offers are posted all along; a real central (an HTTP receiver) answers every offer
 * pushed to it with PUT /aceptacion, and a real generator's receiver takes the acceptance notifications (6.1).
 * The faults, one after the other: Redis cut, Redis stalled, PostgreSQL cut, and Redis killed (SIGKILL) and
 * started again empty with no traffic after it (on a cluster: every master's proxy cut or stalled; every master
 * killed and restarted empty behind its cut proxy). Asserted, with the figures printed for the README:
 * - no process exits; no answer 500; every 503 carries Retry-After; no request waits for the client's timeout;
 * - every offer acknowledged (200) is stored and leaves ABIERTA; it reached the central unless its window overlapped
 *   an outage and ended within PUSH_GRACE_MS of its recovery; 0 duplicate 6.1, no answered offer without its next
 *   state;
 * - windows closed late, measured from their deadline or from the end of the outage their deadline fell in:
 *   p99 and max within 10 s.
 */
import { distributionCutoffMs } from '../../src/domain/distribution/distribute.js';
import { expect } from 'chai';
import got, { type Got } from 'got';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { dropDatabase, ensureDatabase, migrate } from '../../src/db/database.js';
import { reconciledKey } from '../../src/domain/outbox/reconcile.js';
import { createOrm, type MikroORM } from '../../src/db/orm.js';
import { BOGOTA, makeApiUser, makeCentral, makeServiceType, makeTechnician } from './factories.js';
import { freePort } from './ports.js';
import { logLines, spawnEntry, type Spawned } from './spawn.js';
import { startTcpProxy, type TcpProxy } from './tcpProxy.js';
import { startThrowawayRedis } from './throwawayRedis.js';
import { testRedisCluster } from './redisCluster.js';
import { waitFor } from './wait.js';

const WINDOW_MS = 8000;
/**
 * an offer reaches the central unless its window overlaps an outage and ends within this of its recovery: the
 * repair's 4 s, and the last tenth of the window, in which no offer is distributed any more (DIST-1, issue 32)
 */
const PUSH_GRACE_MS = 4000 + distributionCutoffMs({ distributionCutoffMs: 1000, offerResponseWindowMs: WINDOW_MS });
/** an offer every this many ms */
const EVERY_MS = 150;
const CLIENT_TIMEOUT_MS = 10_000;
const RECOVERY_BOUND_S = 10;

interface Call {
  kind: 'oferta' | 'aceptacion';
  uuid: string;
  at: number;
  ms: number;
  /** 0: no answer (timeout or connection refused) */
  status: number;
  retryAfter?: string;
  error?: string;
}

interface Fault {
  name: string;
  start: number;
  end: number;
  /** connections the Redis proxies accepted during it and until the next fault (reconnection attempts) */
  connections?: number;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

const seconds = (ms: number) => Math.round(ms / 10) / 100;

/** Where the service's Redis is, and how the scenario breaks it. */
export interface RedisTopology {
  /** in the test's title and the figures */
  name: string;
  /** starts Redis and the proxies in front of it */
  start(): Promise<void>;
  /** the children's environment for it (REDIS_URL, or REDIS_CLUSTER_NODES and REDIS_CLUSTER_NAT_MAP) */
  env(): Record<string, string>;
  /** a client that reaches Redis directly (not through the proxies), for the test's own look */
  direct(): Redis | Cluster;
  /** connections each Redis proxy accepted (every one > 0: the children's Redis traffic went through the proxies) */
  accepted(): number[];
  cut(): void;
  stall(): void;
  restore(): void;
  /** Redis loses everything: killed (SIGKILL, no persistence) and away until `startEmpty` */
  killEmpty(): Promise<void>;
  /** back, empty */
  startEmpty(): Promise<void>;
  close(): Promise<void>;
}

/** One throwaway redis-server behind one proxy. */
export function singleRedis(): RedisTopology {
  let redis: Awaited<ReturnType<typeof startThrowawayRedis>>;
  let proxy: TcpProxy;
  return {
    name: 'one Redis',
    async start() {
      redis = await startThrowawayRedis();
      proxy = await startTcpProxy({ port: redis.port });
    },
    env: () => ({ REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_CLUSTER_NODES: '', REDIS_CLUSTER_NAT_MAP: '' }),
    direct: () => new Redis(redis.url),
    accepted: () => [proxy.accepted],
    cut: () => proxy.cut(),
    stall: () => proxy.stall(),
    restore: () => proxy.restore(),
    killEmpty: () => redis.kill(),
    startEmpty: () => redis.start(),
    async close() {
      await proxy?.close();
      await redis?.close();
    },
  };
}

/**
 * A three-master Redis Cluster of the run's own (testRedisCluster({ own: true }): its masters may be killed), each
 * master behind a proxy of its own; the children reach every master through its proxy (REDIS_CLUSTER_NAT_MAP).
 */
export function clusterRedis(): RedisTopology {
  let cluster: Awaited<ReturnType<typeof testRedisCluster>>;
  const proxies: TcpProxy[] = [];
  const each = (f: (p: TcpProxy) => void) => () => proxies.forEach(f);
  return {
    name: 'a Redis Cluster of three masters',
    async start() {
      cluster = await testRedisCluster({ own: true });
      for (const node of cluster.nodes) proxies.push(await startTcpProxy(node));
    },
    env: () => ({
      REDIS_CLUSTER_NODES: proxies.map((p) => `127.0.0.1:${p.port}`).join(','),
      REDIS_CLUSTER_NAT_MAP: cluster.nodes.map((n, i) => `${n.host}:${n.port}=127.0.0.1:${proxies[i].port}`).join(','),
    }),
    direct: () => new Cluster(cluster.nodes),
    accepted: () => proxies.map((p) => p.accepted),
    cut: each((p) => p.cut()),
    stall: each((p) => p.stall()),
    restore: each((p) => p.restore()),
    // every master, behind its cut proxy (the service sees them gone at once, as one Redis killed), restarted with no
    // data but its cluster configuration (its slots), as masters without persistence restart
    async killEmpty() {
      proxies.forEach((p) => p.cut());
      await Promise.all(cluster.nodes.map((n) => cluster.restartEmpty(n)));
    },
    startEmpty: async () => proxies.forEach((p) => p.restore()),
    async close() {
      for (const p of proxies) await p.close();
    },
  };
}

/** The scenario on `topology`; `tag` keeps its database and queue prefix apart from another topology's. */
export function outageScenario(topology: RedisTopology, tag: string): void {
  describe(`faults: Redis and PostgreSQL away under a steady load of answered offers, on ${topology.name} (issue 30, D21, D22)`, function () {
    this.timeout(150_000);
    let pgProxy: TcpProxy;
    let orm: MikroORM;
    let dbUrl: string;
    let receiver: Server;
    let web: Spawned | undefined;
    let worker: Spawned | undefined;
    let api: Got;
    const calls: Call[] = [];
    const faultsSeen: Fault[] = [];
    let offersSeen: unknown[] = [];
    /** offer uuid → arrival times of its 6.1 at the generator */
    const acceptances = new Map<string, number[]>();
    /** offer uuid → pushes the central received */
    const pushes = new Map<string, number>();
    const answered = new Set<string>();
    const pending = new Set<Promise<unknown>>();
    let central: { key: string; nit: string; dni: string };
    let generatorAuth: string;

    const track = <T>(p: Promise<T>): Promise<T> => {
      pending.add(p);
      void p.finally(() => pending.delete(p));
      return p;
    };

    async function call(kind: Call['kind'], uuid: string, send: () => Promise<{ statusCode: number; headers: Record<string, unknown> }>): Promise<number> {
      const at = Date.now();
      try {
        const res = await send();
        const retryAfter = res.headers['retry-after'];
        calls.push({ kind, uuid, at, ms: Date.now() - at, status: res.statusCode, ...(retryAfter !== undefined ? { retryAfter: String(retryAfter) } : {}) });
        return res.statusCode;
      } catch (err) {
        calls.push({ kind, uuid, at, ms: Date.now() - at, status: 0, error: (err as Error).message });
        return 0;
      }
    }

    /** The central answers an offer pushed to it, again after a 503 or no answer, while its window may be open. */
    async function answer(uuid: string, until: number): Promise<void> {
      for (;;) {
        const status = await call('aceptacion', uuid, () =>
          api.put('api/v3/aceptacion', {
            json: { id: uuid, dniPrestador: central.nit, dniTecnico: central.dni },
            headers: { 'x-apikey': central.key },
          }),
        );
        if (status === 200) answered.add(uuid);
        if ((status !== 503 && status !== 0) || Date.now() > until) return;
        // as a client that honours Retry-After would, but within the window
        await sleep(1500);
      }
    }

    before(async function () {
      await topology.start();
      pgProxy = await startTcpProxy({ port: Number(new URL(process.env.DATABASE_URL!).port || 5432) });
      const direct = new URL(process.env.DATABASE_URL!);
      direct.pathname = `${direct.pathname}_faults${tag}`;
      dbUrl = direct.toString();
      await ensureDatabase(dbUrl);
      orm = await createOrm(dbUrl);
      await migrate(orm);

      receiver = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { id?: string; uuid?: string };
          if (req.url === '/respuesta' && body.id) acceptances.set(body.id, [...(acceptances.get(body.id) ?? []), Date.now()]);
          if (req.url === '/ofertas' && body.uuid) {
            const uuid = body.uuid;
            pushes.set(uuid, (pushes.get(uuid) ?? 0) + 1);
            if (pushes.get(uuid) === 1) void track(answer(uuid, Date.now() + WINDOW_MS));
          }
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":true}');
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

      const em = orm.em.fork();
      await makeServiceType(em, { id: 1 });
      const gen = await makeApiUser(em, { nit: '860000001', urlApi: receiverUrl, apiEndpoint: { respuesta: '/respuesta', estado: '/estado' } });
      generatorAuth = `Basic ${Buffer.from(`${gen.user.username}:${gen.password}`).toString('base64')}`;
      const key = `fault-central-key-${randomUUID()}`;
      const centralUser = (await makeApiUser(em, { apiKey: key, endpoints: ['/aceptacion'], urlApi: receiverUrl, apiEndpoint: { oferta: '/ofertas' } })).user;
      const c = await makeCentral(em, { apiUser: centralUser, coverage: { center: BOGOTA, radiusKm: 40 } });
      const t = await makeTechnician(em, c, { position: { lat: BOGOTA.lat + 0.01, lng: BOGOTA.lng } });
      central = { key, nit: c.nit, dni: t.dni };

      const proxied = new URL(dbUrl);
      proxied.host = `127.0.0.1:${pgProxy.port}`;
      const port = await freePort();
      const env = {
        DATABASE_URL: proxied.toString(),
        ...topology.env(),
        QUEUE_PREFIX: `faults${tag}_${process.pid}`,
        OFFER_RESPONSE_WINDOW_MS: String(WINDOW_MS),
        WEBHOOK_TIMEOUT_MS: '2000',
        LOG_LEVEL: 'warn',
        PORT: String(port),
      };
      web = spawnEntry('dist/src/main/web.js', { ...env, SWEEP_INTERVAL_MS: '0' });
      // the worker reconciles at the default interval
      worker = spawnEntry('dist/workers/main.js', { ...env, SWEEP_INTERVAL_MS: '5000' });
      api = got.extend({
        prefixUrl: `http://127.0.0.1:${port}`,
        throwHttpErrors: false,
        retry: { limit: 0 },
        timeout: { request: CLIENT_TIMEOUT_MS },
        responseType: 'json',
      });
      await waitFor(async () => (await api.get('health').catch(() => ({ statusCode: 0 }))).statusCode === 200, { timeoutMs: 30_000, what: 'the API process' });
      // the worker's first reconcile has run (it marks Redis when it has)
      const probe = topology.direct();
      try {
        await waitFor(async () => (await probe.exists(reconciledKey(env.QUEUE_PREFIX))) === 1 || worker!.child.exitCode !== null, { timeoutMs: 30_000, what: 'the worker process' });
      } finally {
        probe.disconnect();
      }
    });

    after(async () => {
      // the processes' logs, for a failure's reader
      for (const [name, p] of [['web', web], ['worker', worker]] as const) {
        if (p) writeFileSync(join(tmpdir(), `broker-faults${tag}-${process.pid}-${name}.log`), p.stdout() + p.stderr());
      }
      writeFileSync(join(tmpdir(), `broker-faults${tag}-${process.pid}-calls.json`), JSON.stringify({ calls, faults: faultsSeen, offers: offersSeen, pushes: [...pushes] }));
      for (const p of [web, worker]) {
        if (p && p.child.exitCode === null && p.child.signalCode === null) {
          p.child.kill('SIGKILL');
          await p.exited;
        }
      }
      receiver?.closeAllConnections();
      await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
      await pgProxy?.close();
      await topology.close();
      await orm?.close(true);
      if (dbUrl) await dropDatabase(dbUrl).catch(() => undefined);
    });

    it('answers 503 with Retry-After (never 500, never a hang), loses no acknowledged offer, sends every 6.1 at most once, and closes every window within 10 s of recovery', async () => {
      const faults = faultsSeen;
      let posting = true;
      const load = (async () => {
        while (posting) {
          const uuid = randomUUID();
          void track(
            call('oferta', uuid, () =>
              api.post('api/v3/oferta', {
                json: { uuid, tipoServicio: '1', latitudOrigen: BOGOTA.lat, longitudOrigen: BOGOTA.lng, direccionOrigen: 'Calle 53 # 13-40', fechaCita: '' },
                headers: { authorization: generatorAuth },
              }),
            ),
          );
          await sleep(EVERY_MS);
        }
      })();
      const fault = async (name: string, down: () => Promise<void> | void, up: () => Promise<void> | void, ms: number) => {
        const f: Fault = { name, start: Date.now(), end: 0 };
        const before = sum(topology.accepted());
        const last = faults[faults.length - 1];
        if (last) last.connections = before - (last.connections ?? 0);
        f.connections = before;
        await down();
        await sleep(ms);
        await up();
        f.end = Date.now();
        faults.push(f);
      };

      await sleep(3000);
      await fault('Redis cut', () => topology.cut(), () => topology.restore(), 5000);
      await sleep(4000);
      await fault('Redis stalled', () => topology.stall(), () => topology.restore(), 4000);
      await sleep(4000);
      await fault('PostgreSQL cut', () => pgProxy.cut(), () => pgProxy.restore(), 5000);
      // a window long: the windows of the offers taken now end while Redis is away (their jobs lost with it)
      await sleep(WINDOW_MS + 500);
      // Redis loses everything; the offers taken while it is away and the jobs of those before are Redis's only
      // through the reconcile: no traffic after the restart, so no other offer's evaluation closes their windows.
      await fault('Redis killed, restarted empty', () => topology.killEmpty(), async () => {
        posting = false;
        await topology.startEmpty();
      }, 4000);
      await load;
      const lastRecovery = faults[faults.length - 1].end;

      // every offer acknowledged leaves ABIERTA and every answered one reaches its next state (or the bound is broken)
      const acknowledged = () => [...new Set(calls.filter((c) => c.kind === 'oferta' && c.status === 200).map((c) => c.uuid))];
      const statesOf = (uuids: string[]) =>
        orm.em.fork().getConnection().execute<Array<{ uuid: string; state: string }>>(`select uuid, state from offer where uuid = any(?::uuid[])`, [`{${uuids.join(',')}}`]);
      const settled = async () => {
        const rows = await statesOf(acknowledged());
        // an offer answered by the central is stored, acknowledged or not (below)
        const answeredOpen = (await statesOf([...answered])).filter((r) => r.state === 'ABIERTA').length;
        const open = rows.filter((r) => r.state === 'ABIERTA').length + answeredOpen;
        const unsent = await orm.em.fork().getConnection().execute<Array<{ n: string }>>(
          `select count(*) as n from webhook_delivery where kind = 'acceptance' and state in ('pending', 'sending')`,
        );
        return pending.size === 0 && open === 0 && rows.length === acknowledged().length && Number(unsent[0].n) === 0;
      };
      await waitFor(settled, { timeoutMs: 40_000, intervalMs: 250, what: 'every acknowledged offer to leave ABIERTA and every 6.1 to be settled' }).catch(() => undefined);
      const settledAfterS = seconds(Date.now() - lastRecovery);
      const lastFault = faults[faults.length - 1];
      lastFault.connections = sum(topology.accepted()) - (lastFault.connections ?? 0);

      // --- the figures
      const offers = await orm.em.fork().getConnection().execute<Array<{ uuid: string; state: string; deadline: string; closed: string | null }>>(
        `select o.uuid, o.state, o.deadline_at as deadline,
                (select min(t.at) from offer_transition t where t.offer_uuid = o.uuid and t.from_state = 'ABIERTA') as closed
           from offer o where o.uuid = any(?::uuid[])`,
        [`{${acknowledged().join(',')}}`],
      );
      offersSeen = offers;
      const byStatus = (kind: Call['kind']) => {
        const out: Record<string, number> = {};
        for (const c of calls.filter((x) => x.kind === kind)) out[c.status || 'no answer'] = (out[c.status || 'no answer'] ?? 0) + 1;
        return out;
      };
      const unavailable = calls.filter((c) => c.status === 503);
      const ms503 = unavailable.map((c) => c.ms).sort((a, b) => a - b);
      const stored = new Set(offers.map((o) => o.uuid));
      const lost = acknowledged().filter((u) => !stored.has(u));
      const stillOpen = offers.filter((o) => o.state === 'ABIERTA');
      const inOutage = (t: number) => faults.find((f) => t >= f.start && t <= f.end);
      // an offer whose window ends inside an outage, or right after the one it was taken in, may close unanswered
      const postedAt = new Map(calls.filter((c) => c.kind === 'oferta' && c.status === 200).map((c) => [c.uuid, c.at]));
      const notPushed = offers.filter((o) => !pushes.has(o.uuid));
      const notPushedOutsideOutage = notPushed.filter((o) => {
        const deadline = new Date(o.deadline).getTime();
        const posted = postedAt.get(o.uuid) ?? 0;
        // the last outage its window overlaps (a process may still be reconnecting a moment after one ends)
        const f = [...faults].reverse().find((x) => x.start <= deadline && x.end >= posted - PUSH_GRACE_MS);
        return !f || deadline > f.end + PUSH_GRACE_MS;
      });
      const duplicates = [...acceptances.values()].filter((a) => a.length > 1).length;
      // Every offer the central answered with a 200, read from the database: also one whose POST /oferta was not
      // acknowledged. A PostgreSQL cut between the INSERT's commit and its reply answers 503 for an offer that is
      // stored, as any client of a database meets (the generator's retry with its uuid gets D3's answer); the
      // reconcile distributes it, and its central may answer it. Such an offer is not among `offers` (the
      // acknowledged ones), so it is read here, not taken as stateless.
      const stateOf = new Map((await statesOf([...answered])).map((r) => [r.uuid, r.state]));
      const answeredUnacknowledged = [...answered].filter((u) => !postedAt.has(u));
      const answeredStuck = [...answered].filter((u) => !['ACEPTADA', 'INACTIVA', 'ASIGNADA'].includes(stateOf.get(u) ?? ''));
      /** what a reader of a failure needs of a stuck offer: its state, its POSTs and PUTs, its moves */
      const stuckDetail = async () => {
        const moves = await orm.em.fork().getConnection().execute<Array<{ uuid: string; from_state: string | null; to_state: string; actor: string; at: string }>>(
          `select offer_uuid as uuid, from_state, to_state, actor, at from offer_transition where offer_uuid = any(?::uuid[]) order by at`,
          [`{${answeredStuck.join(',')}}`],
        );
        return answeredStuck.map((u) => ({
          uuid: u,
          state: stateOf.get(u) ?? '(not stored)',
          calls: calls.filter((c) => c.uuid === u).map((c) => ({ kind: c.kind, at: c.at, ms: c.ms, status: c.status, error: c.error })),
          moves: moves.filter((m) => m.uuid === u),
          faults: faults.map((f) => ({ name: f.name, start: f.start, end: f.end })),
        }));
      };
      const acceptedWithout61 = offers.filter((o) => o.state === 'ACEPTADA' && !acceptances.has(o.uuid)).length;
      // lateness: from the deadline, or from the end of the outage the deadline fell in
      const lateness = (list: typeof offers) =>
        list
          .filter((o) => o.closed)
          .map((o) => {
            const deadline = new Date(o.deadline).getTime();
            const due = inOutage(deadline)?.end ?? deadline;
            return new Date(o.closed!).getTime() - due;
          })
          .sort((a, b) => a - b);
      const late = lateness(offers);
      const lines = [
        `fault test (issue 30) on ${topology.name}: ${acknowledged().length} offers acknowledged, ${answered.size} answered by the central; window ${WINDOW_MS} ms, SWEEP_INTERVAL_MS 5000`,
        `  POST /oferta by status: ${JSON.stringify(byStatus('oferta'))}`,
        `  PUT /aceptacion by status: ${JSON.stringify(byStatus('aceptacion'))}`,
        `  503: ${unavailable.length}, with Retry-After ${unavailable.filter((c) => c.retryAfter).length}; answered in p50 ${ms503.length ? quantile(ms503, 0.5) : '-'} ms, p99 ${ms503.length ? quantile(ms503, 0.99) : '-'} ms, max ${ms503.length ? ms503[ms503.length - 1] : '-'} ms`,
        `  lost acknowledged offers: ${lost.length}; still ABIERTA: ${stillOpen.length}; not pushed to the central: ${notPushed.length} (of them, windows open ${PUSH_GRACE_MS / 1000} s past their outage: ${notPushedOutsideOutage.length})`,
        `  6.1: ${[...acceptances.values()].reduce((n, a) => n + a.length, 0)} received, duplicates ${duplicates}; ACEPTADA without its 6.1: ${acceptedWithout61}; answered offers without their next state: ${answeredStuck.length}; answered though their POST was not acknowledged: ${answeredUnacknowledged.length}`,
        `  final states: ${JSON.stringify(offers.reduce<Record<string, number>>((m, o) => ({ ...m, [o.state]: (m[o.state] ?? 0) + 1 }), {}))}; settled ${settledAfterS} s after the last recovery`,
      ];
      for (const f of faults) {
        const due = offers.filter((o) => inOutage(new Date(o.deadline).getTime()) === f);
        const l = lateness(due);
        const during = calls.filter((c) => c.at >= f.start && c.at <= f.end);
        const ms = during.map((c) => c.ms).sort((a, b) => a - b);
        const statuses = during.reduce<Record<string, number>>((m, c) => ({ ...m, [c.status || 'no answer']: (m[c.status || 'no answer'] ?? 0) + 1 }), {});
        lines.push(
          `  ${f.name} (${seconds(f.end - f.start)} s): requests ${JSON.stringify(statuses)} answered in max ${seconds(ms[ms.length - 1] ?? 0)} s; ${due.length} windows due meanwhile closed after recovery in p99 ${seconds(quantile(l, 0.99))} s, max ${seconds(l[l.length - 1] ?? 0)} s; Redis connections opened from it to the next ${f.connections ?? '-'}`,
        );
      }
      lines.push(`  every window, late after its deadline or its outage's end: p50 ${seconds(quantile(late, 0.5))} s, p99 ${seconds(quantile(late, 0.99))} s, max ${seconds(late[late.length - 1] ?? 0)} s`);
      const logs = [...logLines(web!.stdout()), ...logLines(worker!.stdout())];
      lines.push(`  connections through the Redis proxies: ${topology.accepted().join(', ')}`);
      lines.push(`  log lines: error ${logs.filter((l) => Number(l.level) === 50).length}, fatal ${logs.filter((l) => Number(l.level) >= 60).length}; processes exited: ${[web, worker].filter((p) => p!.child.exitCode !== null || p!.child.signalCode !== null).length}`);
      console.log(lines.join('\n'));

      // --- the assertions (D21)
      expect(web!.child.exitCode, `the API process exited: ${web!.stderr().slice(-2000)}`).to.equal(null);
      expect(worker!.child.exitCode, `the worker process exited: ${worker!.stderr().slice(-2000)}`).to.equal(null);
      expect(logs.filter((l) => Number(l.level) >= 60), 'fatal log lines').to.deep.equal([]);
      expect(calls.filter((c) => c.status === 500), 'answers 500').to.deep.equal([]);
      expect(calls.filter((c) => c.status === 0), 'requests without an answer (hung to the client timeout, or refused)').to.deep.equal([]);
      expect(unavailable.filter((c) => !c.retryAfter), '503 without Retry-After').to.deep.equal([]);
      expect(calls.filter((c) => ![200, 400, 503].includes(c.status)), 'answers other than 200, 400 (closed) and 503').to.deep.equal([]);
      for (const n of topology.accepted()) expect(n, 'connections through a Redis proxy').to.be.greaterThan(0);
      expect(unavailable.length, 'the faults were seen by the clients').to.be.greaterThan(0);
      expect(lost, 'acknowledged offers not stored').to.deep.equal([]);
      expect(stillOpen.map((o) => o.uuid), 'acknowledged offers still ABIERTA').to.deep.equal([]);
      expect(notPushedOutsideOutage.map((o) => o.uuid), 'acknowledged offers never pushed though their window outlived the outage').to.deep.equal([]);
      expect(duplicates, 'duplicate 6.1').to.equal(0);
      expect(acceptedWithout61, 'ACEPTADA offers whose 6.1 never arrived').to.equal(0);
      expect(answeredStuck.length ? await stuckDetail() : [], 'answered offers that did not reach their next state').to.deep.equal([]);
      expect(late.length, 'closed windows measured').to.equal(offers.length);
      expect(quantile(late, 0.99), 'p99 of windows closed late (ms)').to.be.at.most(RECOVERY_BOUND_S * 1000);
      expect(late[late.length - 1], 'the latest window closed (ms after its deadline or its outage)').to.be.at.most(RECOVERY_BOUND_S * 1000);
    });
  });
}
