/**
 * Issue 12, item 1, measured as CPU rather than as a ceiling: what one
 * POST /oferta costs the API's process, PostgreSQL and Redis, next to what one
 * offer costs the floor (bench/floor.ts), in the same run.
 *
 * The burst of `bench:auction` saturates both cores, so its throughput moves
 * ±10–15 % from run to run with whatever else the host does, and a change worth
 * 5–10 % of the API's CPU cannot be told from noise there. Here each server runs
 * alone in its own process (the API as the `web` role, `npm run start:api`,
 * with no worker: its jobs wait in Redis and are removed after). Both are
 * started and warmed up (BENCH_WARMUP_S at full speed), then get the same
 * offers at a fixed rate below saturation, BENCH_RATE per second, in
 * BENCH_SEGMENTS turns (the floor, the API, the floor…) of BENCH_SECONDS in all
 * each, so a host that speeds up or slows down during the run weighs on both
 * alike; the CPU each process used in its turns (/proc, user and system)
 * divided by the requests it answered. Then closed-loop bursts on
 * BENCH_CONNECTIONS connections, in turns the same way: each one's ceiling in
 * this layout (one process). PostgreSQL and Redis are read as the machine's
 * processes of those names: run it on a quiet machine. A scratch database and
 * Redis prefix, removed after.
 *
 * BENCH_CPU_PROF=1 runs both servers with `node --cpu-prof` (profiles in
 * bench-profiles/, not in git) and prints their top self-time frames and
 * self time by package, over their whole run; the profiler's own cost
 * inflates that run's CPU figures.
 *
 * BENCH_SYSCALLS=1 counts each server's system calls that move bytes on a
 * socket (`strace -c`, Debian's strace) per request, at the fixed rate and in
 * the bursts: on loopback each write runs the peer's TCP receive path in the
 * writer's system call, so their number weighs more than their size. strace
 * slows what it traces: the CPU figures of such a run are not comparable.
 *
 *   npm run bench:api-cost
 *   BENCH_RATE=300 BENCH_SECONDS=24 BENCH_SEGMENTS=8 npm run bench:api-cost
 *   BENCH_SECONDS=24 BENCH_CPU_PROF=1 npm run bench:api-cost
 *
 * BENCH_AGAINST=contract compares the API with the contract floor's API
 * (bench/contract-duties.ts: the pipeline floor's POST /oferta with the
 * contract's duties of every request) instead of the floor.
 */
import { Redis } from 'ioredis';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { deleteKeys } from './cleanup.js';
import { cpuByPid, cpuMs, spentSince } from './cpu.js';
import { offerTemplate, startFloor } from './floor.js';
import { offerLoad, type OfferLoad } from './offerLoad.js';
import { PROFILE_DIR, profileArgs, summariseProfiles } from './profiles.js';
import { contractHeaders } from './contract-duties.js';
import { PIPELINE_FLOOR_SCRIPT, createPipelineFloorTables, pipelineFloorEnv } from './pipeline-floor.js';
import pg from 'pg';

const RATE = Number(process.env.BENCH_RATE ?? 400);
/** seconds of fixed-rate load per server in all, and again of closed-loop bursts, split into BENCH_SEGMENTS turns */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const SEGMENTS = Number(process.env.BENCH_SEGMENTS ?? 4);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const CPU_PROF = process.env.BENCH_CPU_PROF === '1';
const SYSCALLS = process.env.BENCH_SYSCALLS === '1';
/** BENCH_AGAINST=contract: the API against the contract floor's API (bench/contract-duties.ts) instead of the floor */
const AGAINST_CONTRACT = process.env.BENCH_AGAINST === 'contract';
/** the system calls that move a socket's bytes (libuv's and the kernel's names) */
const IO_CALLS = ['write', 'writev', 'sendto', 'sendmsg', 'read', 'readv', 'recvfrom', 'recvmsg'];

// ---------------------------------------------------------------- servers

interface Server {
  name: string;
  port: number;
  pid: number;
  headers: Record<string, string>;
  stop(): Promise<void>;
}

/** What a server and the machine's PostgreSQL and Redis spent over its segments, and what it answered. */
interface Tally {
  answered: number;
  notOk: number;
  userMs: number;
  systemMs: number;
  postgresMs: number;
  redisMs: number;
  latencies: number[];
  ceiling: { answered: number; seconds: number };
  /** BENCH_SYSCALLS: calls by name at the fixed rate and in the bursts */
  calls: { rate: Map<string, number>; burst: Map<string, number> };
}

/** Counts `pid`'s (all its threads') socket calls until the returned function is called, which gives them by name. */
function traceCalls(pid: number): () => Promise<Map<string, number>> {
  if (!SYSCALLS) return async () => new Map();
  const strace = spawn('strace', ['-c', '-f', '-e', `trace=${IO_CALLS.join(',')}`, '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let out = '';
  strace.stderr.on('data', (d: Buffer) => (out += d.toString()));
  let failed: Error | null = null;
  const exited = new Promise<void>((r) => {
    strace.once('exit', () => r());
    // Debian's strace, not installed on every machine (apt-get install -y strace)
    strace.once('error', (err) => ((failed = err), r()));
  });
  return async () => {
    strace.kill('SIGINT');
    await exited;
    if (failed) throw new Error(`BENCH_SYSCALLS=1 needs strace: ${String(failed)}`);
    // "% time seconds usecs/call calls errors syscall": the calls column, and the name last
    const counts = new Map<string, number>();
    for (const line of out.split('\n')) {
      const cols = line.trim().split(/\s+/);
      const name = cols.at(-1)!;
      if (IO_CALLS.includes(name)) counts.set(name, Number(cols[3]));
    }
    return counts;
  };
}

function addCalls(into: Map<string, number>, from: Map<string, number>): void {
  for (const [name, n] of from) into.set(name, (into.get(name) ?? 0) + n);
}

async function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

async function startServer(name: string, script: string, env: Record<string, string>, port: number, headers: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, [...(CPU_PROF ? profileArgs() : []), script], { env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + 60_000;
  while (!(await portOpen(port))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop();
      throw new Error(`${name} did not listen on ${port}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name, port, pid: child.pid!, headers, stop };
}

/** The load on `server`: its offers, at `rate` per second or (0) as fast as it answers. */
const loadOn = (server: Server, rate: number, seconds: number): OfferLoad => ({
  port: server.port,
  path: '/api/v3/oferta',
  headers: server.headers,
  body: offerTemplate(),
  seconds,
  connections: CONNECTIONS,
  rate,
});
const notOk = (statuses: Record<number, number>) => Object.entries(statuses).reduce((n, [status, count]) => n + (status === '200' ? 0 : count), 0);

/** One fixed-rate segment on `server`, added to its tally. */
async function segment(server: Server, tally: Tally, seconds: number): Promise<void> {
  const [own0, pg0, redis0] = [cpuMs(server.pid), cpuByPid('postgres'), cpuByPid('redis-server')];
  const calls = traceCalls(server.pid);
  const load = await offerLoad(loadOn(server, RATE, seconds));
  addCalls(tally.calls.rate, await calls());
  const [own1, pg1, redis1] = [cpuMs(server.pid), cpuByPid('postgres'), cpuByPid('redis-server')];
  tally.answered += load.latencies.length;
  tally.notOk += notOk(load.statuses);
  tally.userMs += own1.user - own0.user;
  tally.systemMs += own1.system - own0.system;
  tally.postgresMs += spentSince(pg0, pg1);
  tally.redisMs += spentSince(redis0, redis1);
  tally.latencies.push(...load.latencies);
}

/** One closed-loop burst on `server`, added to its ceiling. */
async function burst(server: Server, tally: Tally, seconds: number): Promise<void> {
  const calls = traceCalls(server.pid);
  const load = await offerLoad(loadOn(server, 0, seconds));
  addCalls(tally.calls.burst, await calls());
  tally.ceiling.answered += load.latencies.length;
  tally.ceiling.seconds += load.seconds;
  tally.notOk += notOk(load.statuses);
}

// ---------------------------------------------------------------- report

function printTable(api: Tally, floor: Tally, floorName: string): void {
  const row = (a: string, b: string, c: string, d: string) => console.log(`| ${a.padEnd(44)} | ${b.padStart(12)} | ${c.padStart(12)} | ${d.padStart(8)} |`);
  const per = (t: Tally, ms: number) => ms / t.answered;
  const f3 = (n: number) => n.toFixed(3);
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  const line = (label: string, pick: (t: Tally) => number) => row(label, f3(per(api, pick(api))), f3(per(floor, pick(floor))), ratio(per(api, pick(api)), per(floor, pick(floor))));
  const pct = (t: Tally, p: number) => {
    const sorted = [...t.latencies].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  };
  const latency = (t: Tally) => `${pct(t, 50).toFixed(1)} / ${pct(t, 99).toFixed(0)}`;
  const ceiling = (t: Tally) => t.ceiling.answered / t.ceiling.seconds;
  row('per request, at the fixed rate', 'API', floorName, 'ratio');
  row('-'.repeat(44), '-'.repeat(12), '-'.repeat(12), '-'.repeat(8));
  line('  server process CPU, ms (user + system)', (t) => t.userMs + t.systemMs);
  line('    of which system (the kernel), ms', (t) => t.systemMs);
  line('  PostgreSQL CPU, ms', (t) => t.postgresMs);
  line('  Redis CPU, ms', (t) => t.redisMs);
  line('  all three, ms', (t) => t.userMs + t.systemMs + t.postgresMs + t.redisMs);
  row('  latency p50 / p99, ms', latency(api), latency(floor), '');
  row('ceiling of one process, req/s (closed loop)', ceiling(api).toFixed(0), ceiling(floor).toFixed(0), ratio(ceiling(api), ceiling(floor)));
  if (SYSCALLS) {
    const calls = (t: Tally, at: 'rate' | 'burst', names: string[]) =>
      names.reduce((n, name) => n + (t.calls[at].get(name) ?? 0), 0) / (at === 'rate' ? t.answered : t.ceiling.answered);
    for (const at of ['rate', 'burst'] as const) {
      for (const [label, names] of [['writes', IO_CALLS.slice(0, 4)], ['reads', IO_CALLS.slice(4)]] as const) {
        const [a, f] = [calls(api, at, [...names]), calls(floor, at, [...names])];
        row(`  socket ${label} per request, ${at === 'rate' ? 'fixed rate' : 'bursts'}`, a.toFixed(2), f.toFixed(2), ratio(a, f));
      }
    }
  }
  if (api.notOk + floor.notOk) console.log(`!! ${api.notOk + floor.notOk} requests were not answered 200`);
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const startedAt = Date.now();
  const { loadConfig } = await import('../config/index.js');
  const { dropDatabase, ensureDatabase, migrate } = await import('../src/db/database.js');
  const { createRuntime } = await import('../src/main/runtime.js');
  const { makeApiUser, makeServiceType } = await import('../test/helpers/factories.js');
  const { pino } = await import('pino');

  const db = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  db.pathname = `/broker_bench_cost_${process.pid}`;
  const dbUrl = db.toString();
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `bench_cost_${process.pid}`;
  await ensureDatabase(dbUrl);
  const env = { DATABASE_URL: dbUrl, REDIS_URL: redisUrl, QUEUE_PREFIX: prefix, LOG_LEVEL: 'warn', NODE_ENV: 'development', QUOTA_OFFERS_PER_MIN: '100000000' };
  const rt = await createRuntime(loadConfig({ ...process.env, ...env, PORT: '0' }), { log: pino({ level: 'silent' }) });
  const redis = new Redis(redisUrl);
  try {
    await migrate(rt.orm);
    const em = rt.orm.em.fork();
    await makeServiceType(em, { id: 1, type: 'GRUA' });
    const gen = await makeApiUser(em, { username: 'bench-generator', businessName: 'Aseguradora Andina S.A.', nit: '860000001' });
    const basic = `Basic ${Buffer.from(`${gen.user.username}:${gen.password}`).toString('base64')}`;
    const port = 20_000 + (process.pid % 20_000);

    console.log(
      `issue 12 POST /oferta cost: both servers warmed up ${WARMUP_S} s, then ${SEGMENTS} turns of ${SECONDS / SEGMENTS} s each at ${RATE} offers/s, ` +
        `then ${SEGMENTS} turns of closed-loop bursts on ${CONNECTIONS} connections; 1 KB offers; each server alone in its process`,
    );
    const servers: Server[] = [];
    try {
      if (AGAINST_CONTRACT) {
        // the contract floor's API alone (its jobs wait in Redis, as the API's do)
        const pool = new pg.Pool({ connectionString: dbUrl, max: 1 });
        await createPipelineFloorTables(pool, { centralUrl: 'http://127.0.0.1:9/', duties: true }).finally(() => pool.end());
        const cfEnv = pipelineFloorEnv({ dbUrl, redisUrl, prefix: `${prefix}_cf`, port, windowMs: 30_000, centralUrl: '', duties: true }, 'api');
        servers.push(await startServer('contract floor', PIPELINE_FLOOR_SCRIPT, cfEnv, port, contractHeaders()));
      } else {
        servers.push(await startServer('floor', fileURLToPath(import.meta.url), { ...env, BENCH_FLOOR_ROLE: '1' }, port, {}));
      }
      servers.push(await startServer('API', fileURLToPath(new URL('../src/main/web.js', import.meta.url)), env, port + 1, { authorization: basic }));
      const tallies = servers.map((): Tally => ({ answered: 0, notOk: 0, userMs: 0, systemMs: 0, postgresMs: 0, redisMs: 0, latencies: [], ceiling: { answered: 0, seconds: 0 }, calls: { rate: new Map(), burst: new Map() } }));
      for (const server of servers) await offerLoad(loadOn(server, 0, WARMUP_S));
      // in turns, so a host that speeds up or slows down during the run weighs on both alike
      for (let turn = 0; turn < SEGMENTS; turn++) for (const [i, server] of servers.entries()) await segment(server, tallies[i], SECONDS / SEGMENTS);
      for (let turn = 0; turn < SEGMENTS; turn++) for (const [i, server] of servers.entries()) await burst(server, tallies[i], SECONDS / SEGMENTS);
      printTable(tallies[1], tallies[0], servers[0].name);
    } finally {
      for (const server of servers) await server.stop();
      if (CPU_PROF) {
        console.log(`\nprofiles: ${servers.map((s) => `${s.name} pid ${s.pid}`).join(', ')}`);
        summariseProfiles(PROFILE_DIR, startedAt);
      }
    }
  } finally {
    await rt.close();
    await dropDatabase(dbUrl);
    await deleteKeys(redis, prefix);
    redis.disconnect();
  }
}

if (process.env.BENCH_FLOOR_ROLE === '1') {
  // the floor in a process of its own, so its CPU is read as the API's is
  const floor = await startFloor(process.env.DATABASE_URL!, process.env.REDIS_URL!, `${process.env.QUEUE_PREFIX}_floor`, Number(process.env.PORT));
  process.once('SIGTERM', () => void floor.close().then(() => process.exit(0)));
} else {
  await main();
}
