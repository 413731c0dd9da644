/**
 * Figures of the operations area, on this machine, against the real
 * PostgreSQL and Redis (a scratch database and queue prefix, removed after):
 * 1. POST /queries/history over 200,000 offers (100,000 of the caller's):
 *    p50 / p95 of sequential requests per filter;
 * 2. state notifications: N deliveries (10 per offer, same receiver) to a
 *    local HTTP receiver answering 200: deliveries per second, order checked.
 *
 *   npx tsc -p . && node dist/bench/operations.js [offers=100000] [deliveries=2000] [perOffer=10]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import got from 'got';
import { pino } from 'pino';
import { loadConfig } from '../config/index.js';
import { ApiUser, BusinessLine, Offer, ServiceType } from '../src/db/entities/index.js';
import { dropDatabase, ensureDatabase, migrate } from '../src/db/database.js';
import { enqueueStateNotification } from '../src/domain/notifications/enqueue.js';
import { sha256Hex } from '../src/auth/passwords.js';
import { startHttpServer } from '../src/main/server.js';
import { createRuntime, type Runtime } from '../src/main/runtime.js';
import { createDelivery } from '../src/db/stores/deliveries.js';
import { startWorkers } from '../workers/index.js';

const OFFERS = Number(process.argv[2] ?? 100_000);
const DELIVERIES = Number(process.argv[3] ?? 2_000);
const PER_OFFER = Number(process.argv[4] ?? 10);
const run = `${process.pid}`;
const dbUrl = `postgres://postgres@127.0.0.1:5432/broker_bench_ops_${run}`;

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

async function seed(rt: Runtime): Promise<{ user: ApiUser; password: string }> {
  const em = rt.orm.em.fork();
  const line = em.create(BusinessLine, { code: 'VEH', name: 'ASISTENCIA VEHICULAR' });
  em.create(ServiceType, { id: 1, type: 'GRUA', requiredOrigin: true, requiredDestination: true, line });
  const mk = (username: string) =>
    em.create(ApiUser, {
      username,
      passwordSha256: sha256Hex('bench-pw'),
      status: 'ACTIVO',
      endpoints: ['*'],
      businessName: username,
      apiEndpoint: {},
    });
  const user = mk('bench-generator');
  const other = mk('bench-other');
  await em.flush();
  for (const g of [user, other]) {
    await em.execute(
      `insert into offer (uuid, generator_id, service_type_id, state, created_at, updated_at, origin_lat, origin_lng,
                          descripcion_servicio, scheduled_at, ofertante, stops, internal)
       select gen_random_uuid(), ?, 1,
              (array['ABIERTA','SIN_RESPUESTA','EXPIRADA','ACEPTADA','ASIGNADA','EN_CAMINO','EN_SITIO','FINALIZADA','CANCELADA','NO_ASIGNADA','INACTIVA'])[1 + i % 11],
              now() - i * interval '1 minute', now(), 4.65, -74.08, 'GRUA', now(), 'bench', '[]', i
         from generate_series(1, ?) i`,
      [g.id, OFFERS],
    );
  }
  await em.execute('analyze offer');
  return { user, password: 'bench-pw' };
}

async function historyFigures(rt: Runtime, username: string, password: string): Promise<void> {
  const http = await startHttpServer(rt, 0);
  const client = got.extend({
    prefixUrl: `http://127.0.0.1:${http.port}/api/v3`,
    username,
    password,
    responseType: 'json',
    throwHttpErrors: true,
    retry: { limit: 0 },
  });
  const day = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
  const cases: Array<[string, Record<string, unknown>]> = [
    ['line only, page 1 (50)', { line: 'VEH' }],
    ['line, page 100 (50)', { line: 'VEH', page: 100 }],
    ['line + estado', { line: 'VEH', estado: 'EN_SITIO' }],
    ['line + autNumber (internal)', { line: 'VEH', autNumber: 54321 }],
    ['line + one local day', { line: 'VEH', desde: day, hasta: day }],
    ['line, pageSize 500', { line: 'VEH', pageSize: 500 }],
  ];
  for (const [name, json] of cases) {
    const ms: number[] = [];
    for (let i = 0; i < 40; i++) {
      const t = performance.now();
      await client.post('queries/history', { json });
      ms.push(performance.now() - t);
    }
    console.log(`history ${name}: p50 ${pct(ms, 50).toFixed(1)} ms, p95 ${pct(ms, 95).toFixed(1)} ms`);
  }
  await http.close();
}

async function notificationFigures(rt: Runtime, generator: ApiUser): Promise<void> {
  const seen = new Map<string, number[]>();
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const { id, detalle } = JSON.parse(body) as { id: string; detalle: string };
      const list = seen.get(id) ?? [];
      list.push(Number(detalle));
      seen.set(id, list);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/estado`;
  const em = rt.orm.em.fork();
  const offers = await em.find(Offer, { generator }, { limit: Math.ceil(DELIVERIES / PER_OFFER) });
  const ids: string[] = [];
  for (let n = 0; n < PER_OFFER; n++) {
    for (const offer of offers) {
      if (ids.length >= DELIVERIES) break;
      const body = { id: offer.uuid, estado: 'EN_CAMINO', fecha: new Date().toISOString(), detalle: String(n) };
      const { id } = createDelivery(em, { offer, kind: 'state', receiver: generator, url, body, eventHeader: true });
      ids.push(id);
    }
    await em.flush();
  }
  const workers = await startWorkers(rt);
  const t0 = performance.now();
  for (const id of ids) await enqueueStateNotification(rt, id);
  for (;;) {
    const [{ n }] = await em.execute<Array<{ n: string }>>(`select count(*) as n from webhook_delivery where state = 'ok'`);
    if (Number(n) >= ids.length) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const s = (performance.now() - t0) / 1000;
  const ordered = [...seen.values()].every((l) => l.every((v, i) => i === 0 || l[i - 1] <= v));
  console.log(`notifications: ${ids.length} delivered in ${s.toFixed(2)} s = ${(ids.length / s).toFixed(0)}/s (${PER_OFFER} per offer, one receiver); in order per offer: ${ordered}`);
  await workers.close();
  receiver.close();
}

await ensureDatabase(dbUrl);
const cfg = loadConfig({ ...process.env, DATABASE_URL: dbUrl, QUEUE_PREFIX: `bench_ops_${run}`, SWEEP_INTERVAL_MS: '0', PORT: '0', QUOTA_OFFERS_PER_MIN: '100000000' });
const rt = await createRuntime(cfg, { log: pino({ level: 'silent' }) });
try {
  await migrate(rt.orm);
  const { user, password } = await seed(rt);
  await historyFigures(rt, user.username, password);
  await notificationFigures(rt, user);
} finally {
  const keys = await rt.redis.keys(`bench_ops_${run}*`);
  if (keys.length) await rt.redis.del(...keys);
  await rt.close();
  await dropDatabase(dbUrl);
}
