/**
 * Issue 12, item 1, measured as CPU rather than as a ceiling: what one
 * POST /oferta costs the API's process, PostgreSQL and Redis, next to what one
 * offer costs the floor (bench/floor.ts), in the same run.
 *
 * The burst of `bench:auction` saturates both cores, so its throughput moves
 * ±10–15 % from run to run with whatever else the host does, and a change worth
 * 5–10 % of the API's CPU cannot be told from noise there. Here each server runs
 * alone in its own process (the API as the `web` role, `npm run start:api`,
 * with no worker: its jobs wait in Redis and are removed after) and gets the
 * same offers at a fixed rate below saturation, BENCH_RATE per second for
 * BENCH_SECONDS, after a warm-up of BENCH_WARMUP_S at full speed; the CPU each
 * process used over that time (/proc, user and system) divided by the
 * requests answered. Then each gets a closed-loop burst of BENCH_SECONDS on
 * BENCH_CONNECTIONS connections: its ceiling in this layout (one process).
 * PostgreSQL and Redis are read as the machine's processes of those names:
 * run it on a quiet machine. A scratch database and Redis prefix, removed after.
 *
 *   npm run bench:api-cost
 *   BENCH_RATE=300 BENCH_SECONDS=20 npm run bench:api-cost
 */
import { Redis } from 'ioredis';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { offerTemplate, postOffer, startFloor } from './floor.js';

const RATE = Number(process.env.BENCH_RATE ?? 400);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

interface LoadSpec {
  port: number;
  path: string;
  headers: Record<string, string>;
  /** offers per second; 0: closed loop on every connection */
  rate: number;
  seconds: number;
}
interface LoadResult {
  answered: number;
  notOk: number;
  seconds: number;
  p50: number;
  p99: number;
}

// ---------------------------------------------------------------- load generator (worker thread)

async function generateLoad(spec: LoadSpec): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const template = offerTemplate();
  const latencies: number[] = [];
  let notOk = 0;
  const once = async () => {
    const { status, ms } = await postOffer(agent, spec.port, spec.path, spec.headers, template);
    if (status) latencies.push(ms);
    if (status !== 200) notOk++;
  };
  const start = performance.now();
  const end = start + spec.seconds * 1000;
  if (spec.rate > 0) {
    // open loop: each request leaves at its time whatever the answers before it
    const inFlight: Array<Promise<void>> = [];
    let sent = 0;
    while (performance.now() < end) {
      const due = Math.floor(((performance.now() - start) / 1000) * spec.rate);
      for (; sent < due; sent++) inFlight.push(once());
      await new Promise((r) => setTimeout(r, 2));
    }
    await Promise.all(inFlight);
  } else {
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < end) await once();
      }),
    );
  }
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  return { answered: latencies.length, notOk, seconds, p50: pct(50), p99: pct(99) };
}

function loadFromWorker(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL(import.meta.url), { workerData: spec });
    w.once('message', resolve);
    w.once('error', reject);
  });
}

// ---------------------------------------------------------------- CPU of processes (/proc)

/** user and system CPU milliseconds of a process (0 once it is gone) */
function cpuMs(pid: number): { user: number; system: number } {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 }; // USER_HZ = 100
  } catch {
    return { user: 0, system: 0 };
  }
}

const pidsOf = (name: string): number[] => {
  try {
    return execFileSync('pgrep', ['-x', name]).toString().trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // none running
  }
};

/** CPU ms of every process named `name`, per pid */
const cpuByPid = (name: string): Map<number, number> =>
  new Map(
    pidsOf(name).map((pid) => {
      const { user, system } = cpuMs(pid);
      return [pid, user + system];
    }),
  );
/** What those processes spent in between: one started meanwhile counts whole; one that ended is not seen (pooled connections: neither happens within a run). */
const spentSince = (before: Map<number, number>, after: Map<number, number>): number =>
  [...after].reduce((sum, [pid, ms]) => sum + ms - (before.get(pid) ?? 0), 0);

// ---------------------------------------------------------------- servers

interface Measured {
  name: string;
  userMs: number;
  systemMs: number;
  postgresMs: number;
  redisMs: number;
  fixed: LoadResult;
  ceiling: LoadResult;
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

async function measure(name: string, script: string, env: Record<string, string>, port: number, headers: Record<string, string>): Promise<Measured> {
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    const deadline = Date.now() + 60_000;
    while (!(await portOpen(port))) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${name} did not listen on ${port}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const path = '/api/v3/oferta';
    await loadFromWorker({ port, path, headers, rate: 0, seconds: WARMUP_S });
    const pid = child.pid!;
    const [own0, pg0, redis0] = [cpuMs(pid), cpuByPid('postgres'), cpuByPid('redis-server')];
    const fixed = await loadFromWorker({ port, path, headers, rate: RATE, seconds: SECONDS });
    const [own1, pg1, redis1] = [cpuMs(pid), cpuByPid('postgres'), cpuByPid('redis-server')];
    const ceiling = await loadFromWorker({ port, path, headers, rate: 0, seconds: SECONDS });
    const n = fixed.answered;
    return {
      name,
      userMs: (own1.user - own0.user) / n,
      systemMs: (own1.system - own0.system) / n,
      postgresMs: spentSince(pg0, pg1) / n,
      redisMs: spentSince(redis0, redis1) / n,
      fixed,
      ceiling,
    };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
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
  const env = { DATABASE_URL: dbUrl, REDIS_URL: redisUrl, QUEUE_PREFIX: prefix, LOG_LEVEL: 'warn', NODE_ENV: 'development' };
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
      `issue 12 POST /oferta cost: ${RATE} offers/s for ${SECONDS} s after a ${WARMUP_S} s warm-up, then a ${SECONDS} s burst on ${CONNECTIONS} connections; ` +
        `1 KB offers; each server alone in its process`,
    );
    const floor = await measure('the floor', fileURLToPath(import.meta.url), { ...env, BENCH_FLOOR_ROLE: '1' }, port, {});
    const api = await measure('the API (web role)', fileURLToPath(new URL('../src/main/web.js', import.meta.url)), env, port + 1, { authorization: basic });

    const row = (a: string, b: string, c: string, d: string) => console.log(`| ${a.padEnd(44)} | ${b.padStart(12)} | ${c.padStart(12)} | ${d.padStart(8)} |`);
    const f3 = (n: number) => n.toFixed(3);
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
    row('per request, at the fixed rate', api.name.split(' ')[1], 'floor', 'ratio');
    row('-'.repeat(44), '-'.repeat(12), '-'.repeat(12), '-'.repeat(8));
    row("  server process CPU, ms (user + system)", f3(api.userMs + api.systemMs), f3(floor.userMs + floor.systemMs), ratio(api.userMs + api.systemMs, floor.userMs + floor.systemMs));
    row('    of which system (the kernel), ms', f3(api.systemMs), f3(floor.systemMs), ratio(api.systemMs, floor.systemMs));
    row('  PostgreSQL CPU, ms', f3(api.postgresMs), f3(floor.postgresMs), ratio(api.postgresMs, floor.postgresMs));
    row('  Redis CPU, ms', f3(api.redisMs), f3(floor.redisMs), ratio(api.redisMs, floor.redisMs));
    const total = (m: Measured) => m.userMs + m.systemMs + m.postgresMs + m.redisMs;
    row('  all three, ms', f3(total(api)), f3(total(floor)), ratio(total(api), total(floor)));
    row('  latency p50 / p99, ms', `${api.fixed.p50.toFixed(1)} / ${api.fixed.p99.toFixed(0)}`, `${floor.fixed.p50.toFixed(1)} / ${floor.fixed.p99.toFixed(0)}`, '');
    row('ceiling of one process, req/s (closed loop)', (api.ceiling.answered / api.ceiling.seconds).toFixed(0), (floor.ceiling.answered / floor.ceiling.seconds).toFixed(0),
      ratio(api.ceiling.answered / api.ceiling.seconds, floor.ceiling.answered / floor.ceiling.seconds));
    const refused = api.fixed.notOk + api.ceiling.notOk + floor.fixed.notOk + floor.ceiling.notOk;
    if (refused) console.log(`!! ${refused} requests were not answered 200`);
  } finally {
    await rt.close();
    await dropDatabase(dbUrl);
    for (let cursor = '0'; ; ) {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      if ((cursor = next) === '0') break;
    }
    redis.disconnect();
  }
}

if (!isMainThread) {
  parentPort!.postMessage(await generateLoad(workerData as LoadSpec));
} else if (process.env.BENCH_FLOOR_ROLE === '1') {
  // the floor in a process of its own, so its CPU is read as the API's is
  const floor = await startFloor(process.env.DATABASE_URL!, process.env.REDIS_URL!, `${process.env.QUEUE_PREFIX}_floor`, Number(process.env.PORT));
  process.once('SIGTERM', () => void floor.close().then(() => process.exit(0)));
} else {
  await main();
}
