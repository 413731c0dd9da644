/**
 * Real-time capacity (D10), loopback only and bounded. Two phases, same clients, same run:
 *  - floor: a bare `ws` server (no auth, no Redis) holding the sockets and sending the same frames;
 *  - service: the API's own HTTP server and socket server (technicians authenticated at the
 *    upgrade, events through Redis pub/sub), the same code as the `web` process.
 * Each phase reports the sockets held, memory per socket (RSS, and the V8 heap after a full GC)
 * and, with every socket still connected, the time from a state change to its arrival at
 * 1,000 of them: from the transaction's start (service only) and from the send/publish.
 * This process is the server (and, for the service, the worker making the state change); the
 * clients live in a child process (bench/ws-clients.ts), so this process's memory is the server's.
 *
 *   npm run bench:ws            # needs PostgreSQL (PostGIS) and Redis
 *   BENCH_CONNECTIONS=19500 BENCH_ROUNDS=100 npm run bench:ws
 *
 * Creates and drops its own database (broker_bench_<pid>) and Redis prefix. Linux only
 * (reads /proc/self/status). Each process needs a file limit above BENCH_CONNECTIONS.
 */
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import { loadConfig } from '../config/index.js';
import { dropDatabase, ensureDatabase, migrate } from '../src/db/database.js';
import { ApiUser, Offer } from '../src/db/entities/index.js';
import { announceTransitions } from '../src/domain/offers/lifecycle/announce.js';
import { lockOffer } from '../src/domain/offers/lifecycle/stateMachine.js';
import { transition } from '../src/domain/offers/lifecycle/moves.js';
import { startHttpServer } from '../src/main/server.js';
import { createRuntime, type Runtime } from '../src/main/runtime.js';
import { frame } from '../src/realtime/protocol.js';
import { makeApiUser, makeCentral, makeOffer, makeServiceType } from '../test/helpers/factories.js';
import type { ClientCommand, ClientReply } from './ws-clients.js';
import { deleteKeys } from './cleanup.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10000);
const LATENCY_SOCKETS = Math.min(CONNECTIONS, Number(process.env.BENCH_LATENCY_SOCKETS ?? 1000));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 50);
/** rounds run first and not counted (JIT warm-up on both sides) */
const WARMUP = 3;
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const CHECKPOINTS = [1000, 2000, 5000, 10000, 15000].filter((n) => n < CONNECTIONS).concat(CONNECTIONS);
const API_KEY = 'bench-central-key';
const DNI_PREFIX = 'B';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc (npm run bench:ws does)');

const run = `bench_${process.pid}`;
const dbUrl = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/broker');
dbUrl.pathname = `/broker_${run}`;
const cfg = loadConfig({ ...process.env, NODE_ENV: 'test', DATABASE_URL: dbUrl.toString(), QUEUE_PREFIX: run, PORT: '0' });

const round1 = (v: number) => Math.round(v * 10) / 10;
const mb = (bytes: number) => round1(bytes / 1048576);
const clock = () => performance.timeOrigin + performance.now();
const rssBytes = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) * 1024;

function summary(xs: number[]) {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => round1(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]);
  return { p50: at(50), p99: at(99), max: round1(s.at(-1)!) };
}

/** RSS and heap after a full GC, once the process has settled. */
async function memory(): Promise<{ rss: number; heap: number }> {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  gc!();
  gc!();
  return { rss: rssBytes(), heap: process.memoryUsage().heapUsed };
}

/** What a phase measures against. */
interface Target {
  url: string;
  connections(): number;
  newOffer(): Promise<string>;
  /** sends offer.new to the technicians B0..B{n-1} */
  distribute(uuid: string, n: number): Promise<void>;
  /** the state change; clock() at its start (null: no transaction) and at the send/publish */
  change(uuid: string, n: number): Promise<{ t0: number | null; t1: number }>;
}

function startClients() {
  const child = fork(fileURLToPath(new URL('./ws-clients.js', import.meta.url)), { stdio: 'inherit' });
  const reply = <R extends ClientReply['cmd']>(want: R) =>
    new Promise<Extract<ClientReply, { cmd: R }>>((resolve) => {
      const on = (r: ClientReply) => {
        if (r.cmd !== want) return;
        child.off('message', on);
        resolve(r as Extract<ClientReply, { cmd: R }>);
      };
      child.on('message', on);
    });
  const ask = <R extends ClientReply['cmd']>(c: ClientCommand, want: R) => {
    const r = reply(want);
    child.send(c);
    return r;
  };
  return { child, reply, ask };
}

type Clients = ReturnType<typeof startClients>;

async function phase(name: string, target: Target, clients: Clients) {
  const base = await memory();
  const points: Array<{ sockets: number; rssMb: number; heapMb: number }> = [];
  let held = 0;
  let stoppedBy: string | null = null;
  let connectMs = 0;
  for (const to of CHECKPOINTS) {
    const t = performance.now();
    const r = await clients.ask({ cmd: 'open', url: target.url, to, batch: BATCH, apiKey: API_KEY, dniPrefix: DNI_PREFIX }, 'opened');
    connectMs += performance.now() - t;
    held = r.held;
    stoppedBy = r.error;
    const m = await memory();
    points.push({ sockets: held, rssMb: mb(m.rss), heapMb: mb(m.heap) });
    process.stderr.write(`  ${name}: ${held} sockets, RSS ${mb(m.rss)} MB, heap ${mb(m.heap)} MB\n`);
    if (stoppedBy || held !== target.connections()) break;
  }

  const fromChange: number[] = [];
  const fromSend: number[] = [];
  const lastSocket: number[] = [];
  for (let i = -WARMUP; i < ROUNDS && held >= LATENCY_SOCKETS; i++) {
    const uuid = await target.newOffer();
    const enrolled = clients.ask({ cmd: 'watch', uuid, count: LATENCY_SOCKETS }, 'enrolled');
    await target.distribute(uuid, LATENCY_SOCKETS);
    await enrolled;
    const arrived = clients.reply('arrived');
    const { t0, t1 } = await target.change(uuid, LATENCY_SOCKETS);
    const { at } = await arrived;
    if (i < 0) continue;
    for (const a of at) {
      if (t0 !== null) fromChange.push(a - t0);
      fromSend.push(a - t1);
    }
    lastSocket.push(Math.max(...at) - (t0 ?? t1));
  }
  await clients.ask({ cmd: 'reset' }, 'reset');

  const last = points.at(-1)!;
  const baseMb = { rss: mb(base.rss), heap: mb(base.heap) };
  return {
    held,
    stoppedBy: stoppedBy ?? `BENCH_CONNECTIONS=${CONNECTIONS} reached`,
    upgradesPerS: Math.round((held / connectMs) * 1000),
    baseMb,
    points,
    kbPerSocket: { rss: round1(((last.rssMb - baseMb.rss) * 1024) / held), heap: round1(((last.heapMb - baseMb.heap) * 1024) / held) },
    latencyMs: {
      sockets: LATENCY_SOCKETS,
      connected: held,
      rounds: ROUNDS,
      changeToArrival: summary(fromChange),
      sendToArrival: summary(fromSend),
      lastSocket: summary(lastSocket),
    },
  };
}

/** A bare ws server: what ws itself costs on this machine (the floor). */
async function bareTarget(): Promise<Target & { close(): Promise<void> }> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  await once(wss, 'listening');
  const byIndex = new Map<number, WebSocket>();
  wss.on('connection', (ws, req) => {
    const i = Number(String(req.headers['x-dni-tecnico']).slice(DNI_PREFIX.length));
    byIndex.set(i, ws);
    ws.on('close', () => byIndex.delete(i));
    ws.send(frame('connected', { socketId: randomUUID() }));
  });
  const sendFirst = (n: number, text: string) => {
    const payload = Buffer.from(text);
    for (let i = 0; i < n; i++) byIndex.get(i)?.send(payload, { binary: false });
  };
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/v3`,
    connections: () => byIndex.size,
    newOffer: async () => randomUUID(),
    distribute: async (uuid, n) => sendFirst(n, frame('offer.new', { uuid, distance: 1 })),
    change: async (uuid, n) => {
      const t1 = clock();
      sendFirst(n, frame('offer.state', { uuid, estado: 'NO_ASIGNADA', anterior: 'ABIERTA', fecha: new Date().toISOString() }));
      return { t0: null, t1 };
    },
    close: () => new Promise<void>((resolve) => wss.close(() => resolve())),
  };
}

/** The service: the API's HTTP and socket server; the change is a real transition announced after commit. */
async function serviceTarget(rt: Runtime): Promise<Target & { close(): Promise<void> }> {
  const em = rt.orm.em.fork();
  await makeServiceType(em);
  const { user: generator } = await makeApiUser(em);
  const { user: owner } = await makeApiUser(em, { apiKey: API_KEY, nit: '901000001', endpoints: ['/aceptacion'] });
  const central = await makeCentral(em, { apiUser: owner, nit: '901000001' });
  await em.getConnection().execute(
    `insert into technician (dni, central_id, names, rate, available, service_types)
     select ? || g, ?, 'Técnico ' || g, 5, true, '[1]' from generate_series(0, ? - 1) g`,
    [DNI_PREFIX, central.id, CONNECTIONS],
  );
  const rows = await em.getConnection().execute<Array<{ id: number; dni: string }>>('select id, dni from technician');
  const ids = new Map(rows.map((r) => [r.dni, r.id]));
  const http = await startHttpServer(rt, 0);
  return {
    url: `ws://127.0.0.1:${http.port}/v3`,
    connections: () => http.realtime.connections,
    newOffer: async () => {
      const fresh = rt.orm.em.fork();
      return (await makeOffer(fresh, await fresh.findOneOrFail(ApiUser, generator.id))).uuid;
    },
    distribute: async (uuid, n) => {
      const publishes = [];
      for (let i = 0; i < n; i++) {
        publishes.push(rt.events.publish({ kind: 'technician', technicianId: ids.get(`${DNI_PREFIX}${i}`)! }, 'offer.new', { uuid, distance: 1 }));
      }
      await Promise.all(publishes);
    },
    change: async (uuid) => {
      const t0 = clock();
      const result = await rt.orm.em.fork().transactional(async (tx) =>
        transition(tx, (await lockOffer(tx, uuid)) as Offer, { to: 'NO_ASIGNADA', by: 'no-asignacion', actor: 'bench' }),
      );
      const t1 = clock();
      await announceTransitions(rt, [{ offer: { uuid, generatorId: generator.id }, result }]);
      return { t0, t1 };
    },
    close: () => http.close(),
  };
}

async function main(): Promise<void> {
  await ensureDatabase(cfg.databaseUrl);
  const rt = await createRuntime(cfg, { log: pino({ level: 'silent' }) });
  const clients = startClients();
  try {
    await migrate(rt.orm);
    const bare = await bareTarget();
    const floor = await phase('floor (bare ws)', bare, clients);
    await bare.close();
    const service = await serviceTarget(rt);
    const ours = await phase('service', service, clients);
    await service.close();
    const report = { machine: { cpus: cpus().length, node: process.version }, floor, service: ours };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    if (clients.child.exitCode === null && clients.child.signalCode === null) {
      const exited = once(clients.child, 'exit');
      clients.child.kill('SIGKILL');
      await exited;
    }
    await deleteKeys(rt.redis, run);
    await rt.close();
    await dropDatabase(cfg.databaseUrl);
  }
}

await main();
