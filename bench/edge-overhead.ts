/**
 * What the HTTP edge costs: req/s and latency of a bare Koa hello-world JSON
 * server next to our app's edge paths, measured in the same run (so the
 * ratio, not the absolute figure, is what to compare with perf-floors.md).
 * The load generator runs in a worker thread with keep-alive connections; a
 * throwaway database is created and dropped.
 *
 *   npx tsc -p . && BENCH_SECONDS=5 BENCH_CONNECTIONS=50 node dist/bench/edge-overhead.js
 */
import Koa from 'koa';
import { request, Agent, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { deleteKeys } from './cleanup.js';

interface LoadSpec {
  port: number;
  path: string;
  headers: Record<string, string>;
  seconds: number;
  connections: number;
}
interface LoadResult {
  requests: number;
  statuses: Record<number, number>;
  p50: number;
  p99: number;
}

async function generateLoad(spec: LoadSpec): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: spec.connections });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const t = performance.now();
      const req = request({ host: '127.0.0.1', port: spec.port, path: spec.path, headers: spec.headers, agent }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - t);
          statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1;
          resolve();
        });
      });
      req.on('error', reject);
      req.end();
    });
  const run = async (ms: number) => {
    const end = performance.now() + ms;
    await Promise.all(
      Array.from({ length: spec.connections }, async () => {
        while (performance.now() < end) await once();
      }),
    );
  };
  await run(1000); // warm-up
  latencies.length = 0;
  for (const k of Object.keys(statuses)) delete statuses[Number(k)];
  await run(spec.seconds * 1000);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  return { requests: latencies.length, statuses, p50: pct(50), p99: pct(99) };
}

function loadFromWorker(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL(import.meta.url), { workerData: spec });
    w.once('message', resolve);
    w.once('error', reject);
  });
}

async function main(): Promise<void> {
  const { loadConfig } = await import('../config/index.js');
  const { dropDatabase, ensureDatabase, migrate } = await import('../src/db/database.js');
  const { startHttpServer } = await import('../src/main/server.js');
  const { createRuntime } = await import('../src/main/runtime.js');
  const { makeApiUser, makeServiceType } = await import('../test/helpers/factories.js');
  const { pino } = await import('pino');

  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
  const db = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  db.pathname = `/broker_bench_edge_${process.pid}`;
  await ensureDatabase(db.toString());
  const cfg = loadConfig({ ...process.env, DATABASE_URL: db.toString(), QUEUE_PREFIX: `bench_edge_${process.pid}`, PORT: '0', QUOTA_OFFERS_PER_MIN: '100000000' });
  const rt = await createRuntime(cfg, { log: pino({ level: 'silent' }) });
  try {
    await migrate(rt.orm);
    const em = rt.orm.em.fork();
    await makeServiceType(em, { id: 1 });
    await makeApiUser(em, { username: 'bench', password: 'bench' });

    const bare = new Koa();
    bare.use((ctx) => {
      ctx.body = { hello: 'world' };
    });
    const bareServer = createServer(bare.callback());
    await new Promise<void>((r) => bareServer.listen(0, '127.0.0.1', r));
    const ours = await startHttpServer(rt, 0);

    const basic = `Basic ${Buffer.from('bench:bench').toString('base64')}`;
    const cases: Array<[string, number, string, Record<string, string>]> = [
      ['bare Koa hello-world JSON', (bareServer.address() as AddressInfo).port, '/', {}],
      ['our edge: unknown route (404 body)', ours.port, '/api/v3/nope', {}],
      ['our edge: GET /health (PG + Redis)', ours.port, '/health', {}],
      ['GET /api/v3/types (Basic + 1 query)', ours.port, '/api/v3/types', { authorization: basic }],
    ];
    console.log(`${connections} connections, ${seconds} s per case (after 1 s warm-up)`);
    let reference = 0;
    for (const [name, port, path, headers] of cases) {
      const r = await loadFromWorker({ port, path, headers, seconds, connections });
      const rps = r.requests / seconds;
      reference ||= rps;
      console.log(
        `${name.padEnd(38)} ${rps.toFixed(0).padStart(7)} req/s  (${((100 * rps) / reference).toFixed(0).padStart(3)} %)  ` +
          `p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  statuses ${JSON.stringify(r.statuses)}`,
      );
    }
    await ours.close();
    await new Promise<void>((r) => bareServer.close(() => r()));
  } finally {
    // the queues' meta keys and the limiter's markers the requests left, like the database
    await deleteKeys(rt.redis, cfg.queuePrefix);
    await rt.close();
    await dropDatabase(db.toString());
  }
}

if (isMainThread) {
  await main();
} else {
  parentPort!.postMessage(await generateLoad(workerData as LoadSpec));
}
