/**
 * `npm run bench:geo`: the distribution's candidates query (covering centrals
 * + nearest available technicians) with 1,000 centrals and 100,000
 * technicians, in a throwaway database that is dropped at the end.
 * Prints the load time, the plan (EXPLAIN ANALYZE) and, for N calls per case,
 * the median and p99 of findCandidates as the distribution job calls it (round
 * trips from Node included) and of PostgreSQL's own execution time.
 *
 *   BENCH_N=1000 BENCH_CENTRALS=1000 BENCH_TECHNICIANS=100000 npm run bench:geo
 */
import { performance } from 'node:perf_hooks';
import { dropDatabase, ensureDatabase, migrate } from '../src/db/database.js';
import { createOrm } from '../src/db/orm.js';
import { explainCandidates } from '../src/db/stores/technicians.js';
import { findCandidates, type CandidateQuery } from '../src/domain/distribution/candidates.js';
import { loadGeoWorld } from './geoLoad.js';

const N = Number(process.env.BENCH_N ?? 1000);
const size = { centrals: Number(process.env.BENCH_CENTRALS ?? 1000), technicians: Number(process.env.BENCH_TECHNICIANS ?? 100_000) };
const url = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
url.pathname = `/broker_bench_geo_${process.pid}`;

const BOGOTA = { lat: 4.6533, lng: -74.0836 };
const MEDELLIN = { lat: 6.2442, lng: -75.5812 };
const CASES: Array<[string, CandidateQuery]> = [
  ['Bogotá, type 1, 15 km, cap 50', { ...BOGOTA, serviceTypeId: 1, radiusKm: 15, maxAgeS: 600, cap: 50 }],
  ['Bogotá, type 3, 30 km (priority), cap 50', { ...BOGOTA, serviceTypeId: 3, radiusKm: 30, maxAgeS: 600, cap: 50 }],
  ['Medellín, type 1, 15 km, cap 50', { ...MEDELLIN, serviceTypeId: 1, radiusKm: 15, maxAgeS: 600, cap: 50 }],
];

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const ms = (v: number) => `${v.toFixed(2)} ms`;

await ensureDatabase(url.toString());
const orm = await createOrm(url.toString());
try {
  await migrate(orm);
  const em = orm.em.fork();
  const t0 = performance.now();
  await loadGeoWorld(em, size);
  console.log(`loaded ${size.centrals} centrals and ${size.technicians} technicians in ${ms(performance.now() - t0)}`);
  const executionMs = async (q: CandidateQuery) => {
    const [row] = await explainCandidates(em, q, 'analyze, format json');
    return (row['QUERY PLAN'] as Array<{ 'Execution Time': number }>)[0]['Execution Time'];
  };
  for (const [name, q] of CASES) {
    const plan = await explainCandidates(em, q, 'analyze, costs off');
    const found = await findCandidates(em, q);
    const client: number[] = [];
    const server: number[] = [];
    for (let i = 0; i < N; i++) {
      const s = performance.now();
      await findCandidates(em, q);
      client.push(performance.now() - s);
      if (i % 10 === 0) server.push(await executionMs(q));
    }
    client.sort((a, b) => a - b);
    server.sort((a, b) => a - b);
    console.log(`\n== ${name}: ${found.centrals.length} covering centrals, ${found.technicians.length} technicians`);
    console.log(plan.map((r) => r['QUERY PLAN']).join('\n'));
    console.log(
      `findCandidates over ${N} calls: median ${ms(pct(client, 50))}, p99 ${ms(pct(client, 99))}; ` +
        `PostgreSQL execution over ${server.length}: median ${ms(pct(server, 50))}, p99 ${ms(pct(server, 99))}`,
    );
  }
} finally {
  await orm.close(true);
  await dropDatabase(url.toString());
}
