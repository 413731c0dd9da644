/**
 * Issue 12, item 2, measured against the least a pipeline could do: the
 * pipeline floor, run by bench:auction in the same run as the offer floor
 * (bench/floor.ts) and the service, and loaded as the service is for its
 * sustained rate (bench/sustained.ts), so the service's rate can be read
 * against both.
 *
 * It does for each offer only what the spec makes of one (1, 3: stored,
 * distributed to the centrals covering its origin and their technicians,
 * closed when its window ends), each part minimal and written the plain way,
 * one job per offer, with the design card's parts and in the processes
 * `npm start` runs the service in:
 * - the API: Koa + koa-bodyparser, one INSERT of the offer (uuid key, jsonb
 *   body, origin point, deadline) through a pg Pool of 10, and two BullMQ
 *   adds with jobId = uuid: its distribution now and its evaluation delayed
 *   by the window;
 * - a time-critical worker (BullMQ, one job at a time, as the service's):
 *   one UPDATE closing the offer, accepted if a response exists, else
 *   unanswered;
 * - a background worker at nice 10 (BullMQ, 10 jobs at once): one statement
 *   that records a recipient row per covering central (PostGIS: the
 *   central's coverage circle, its technicians within reach) and returns
 *   them; one PUBLISH of the offer for the technicians; one HTTP POST of it
 *   (got) to each covering central.
 * Statements are prepared, as the service's are. None of the service's other
 * duties: no authentication, validation, audit rows, delivery log, expiry,
 * notices, events or metrics.
 */
import { Queue, Worker } from 'bullmq';
import got from 'got';
import { Redis } from 'ioredis';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, createServer } from 'node:http';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { cpuMs } from './cpu.js';
import { BOGOTA, offerTemplate } from './floor.js';
import { until, type Pipeline } from './sustained.js';

const TECHNICIANS = 50;
const COVERAGE_M = 40_000;
const REACH_M = 10_000;
/** as the service's jobs are kept (src/queues/registry.ts) */
const KEPT = { removeOnComplete: 1000, removeOnFail: 5000 } as const;

const SCHEMA = `
create extension if not exists postgis;
create table pf_central (id serial primary key, name text not null, url text not null, center geography(Point, 4326) not null, radius_m float8 not null);
create index on pf_central using gist (center);
create table pf_technician (id serial primary key, central_id int not null references pf_central, dni text not null, position geography(Point, 4326) not null);
create index on pf_technician using gist (position);
create index on pf_technician (central_id);
create table pf_offer (uuid uuid primary key, body jsonb not null, origin geography(Point, 4326) not null, state text not null,
                       deadline_at timestamptz not null, closed_at timestamptz);
create table pf_recipient (offer_uuid uuid not null references pf_offer, central_id int not null references pf_central,
                           technician_ids int[] not null, primary key (offer_uuid, central_id));
create table pf_response (offer_uuid uuid not null references pf_offer, central_id int not null, technician_id int not null,
                          minutes int not null, primary key (offer_uuid, central_id));`;

const INSERT_OFFER = `insert into pf_offer (uuid, body, origin, state, deadline_at)
  values ($1, $2, st_setsrid(st_makepoint($3, $4), 4326)::geography, 'ABIERTA', now() + make_interval(secs => $5 / 1000.0))`;

const RECORD_RECIPIENTS = `
with o as (select uuid, origin from pf_offer where uuid = $1 and state = 'ABIERTA'),
c as (select c.id, c.url, array_agg(t.id order by t.id) as technicians
        from o join pf_central c on st_dwithin(c.center, o.origin, c.radius_m)
        join pf_technician t on t.central_id = c.id and st_dwithin(t.position, o.origin, ${REACH_M})
       group by c.id, c.url),
ins as (insert into pf_recipient (offer_uuid, central_id, technician_ids) select $1, id, technicians from c on conflict do nothing)
select c.id, c.url, c.technicians, (select body from pf_offer where uuid = $1) as body from c`;

const CLOSE_OFFER = `update pf_offer set closed_at = now(),
  state = case when exists (select 1 from pf_response r where r.offer_uuid = pf_offer.uuid) then 'ACEPTADA' else 'SIN_RESPUESTA' end
  where uuid = $1 and state = 'ABIERTA'`;

// ---------------------------------------------------------------- its processes

type Role = 'api' | 'time-critical' | 'background';
const ROLES: readonly Role[] = ['api', 'time-critical', 'background'];
const ROLE_ENV = 'BENCH_PIPELINE_FLOOR_ROLE';

/** A process of the pipeline floor (this module as its entry, the role in ROLE_ENV): tells its parent when it is ready, stops on SIGTERM. */
async function runRole(role: Role): Promise<void> {
  const windowMs = Number(process.env.WINDOW_MS);
  const prefix = process.env.QUEUE_PREFIX!;
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  const connection = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
  const stops: Array<() => Promise<unknown>> = [];
  if (role === 'api') {
    const distribution = new Queue('pf-distribution', { connection, prefix });
    const evaluation = new Queue('pf-evaluation', { connection, prefix });
    const app = new Koa();
    app.use(bodyParser());
    app.use(async (ctx) => {
      const body = ctx.request.body as { uuid: string; latitudOrigen: number; longitudOrigen: number };
      await pool.query({ name: 'insert-offer', text: INSERT_OFFER, values: [body.uuid, body, body.longitudOrigen, body.latitudOrigen, windowMs] });
      await Promise.all([
        distribution.add('distribute', { offerUuid: body.uuid }, { jobId: body.uuid, ...KEPT }),
        evaluation.add('evaluate', { offerUuid: body.uuid }, { jobId: body.uuid, delay: windowMs, ...KEPT }),
      ]);
      ctx.body = { status: true, msg: 'OFERTA RECIBIDA' };
    });
    const server = createServer(app.callback());
    await new Promise<void>((r) => server.listen(Number(process.env.PORT), '127.0.0.1', r));
    stops.push(() => new Promise((r) => server.close(r)), () => distribution.close(), () => evaluation.close());
  } else if (role === 'background') {
    setPriority(10);
    const publisher = new Redis(process.env.REDIS_URL!);
    const http = got.extend({ retry: { limit: 0 }, timeout: { request: 5000 }, agent: { http: new Agent({ keepAlive: true, maxSockets: 50 }) } });
    const worker = new Worker(
      'pf-distribution',
      async (job) => {
        const { rows } = await pool.query<{ url: string; technicians: number[]; body: unknown }>({ name: 'record-recipients', text: RECORD_RECIPIENTS, values: [job.data.offerUuid] });
        if (!rows.length) return;
        await publisher.publish(`${prefix}:technicians`, JSON.stringify({ offer: rows[0].body, technicians: rows.flatMap((r) => r.technicians) }));
        await Promise.all(rows.map((r) => http.post(r.url, { json: { offer: r.body, technicians: r.technicians } })));
      },
      { connection, prefix, concurrency: 10 },
    );
    stops.push(() => worker.close(), async () => publisher.disconnect());
  } else {
    const worker = new Worker('pf-evaluation', async (job) => void (await pool.query({ name: 'close-offer', text: CLOSE_OFFER, values: [job.data.offerUuid] })), {
      connection,
      prefix,
      concurrency: 1,
    });
    stops.push(() => worker.close());
  }
  process.send!('ready');
  process.once('SIGTERM', async () => {
    for (const stop of stops) await stop();
    connection.disconnect();
    await pool.end();
    process.exit(0);
  });
}

// ---------------------------------------------------------------- started by the bench

export interface PipelineFloor extends Pipeline {
  /** waits (up to maxMs) until no distribution is left and no window is open */
  settled(maxMs: number): Promise<boolean>;
  /** stops its processes (each finishes what it runs) */
  close(): Promise<void>;
}

/**
 * Creates the pipeline floor's tables in `dbUrl` (its own, `pf_`), one central covering the bench's origin with
 * TECHNICIANS technicians near it whose pushes go to `centralUrl`, and starts its three processes on `port`.
 */
export async function startPipelineFloor(opts: { dbUrl: string; redisUrl: string; prefix: string; port: number; windowMs: number; centralUrl: string }): Promise<PipelineFloor> {
  const pool = new pg.Pool({ connectionString: opts.dbUrl, max: 2 });
  await pool.query(SCHEMA);
  const central = (
    await pool.query<{ id: number }>(
      `insert into pf_central (name, url, center, radius_m) values ('Grúas del Norte', $1, st_setsrid(st_makepoint($2, $3), 4326)::geography, $4) returning id`,
      [opts.centralUrl, BOGOTA.lng, BOGOTA.lat, COVERAGE_M],
    )
  ).rows[0].id;
  await pool.query(
    `insert into pf_technician (central_id, dni, position)
     select $1, 'BENCH-T' || i, st_setsrid(st_makepoint($2, $3 + 0.001 * i), 4326)::geography from generate_series(1, $4) i`,
    [central, BOGOTA.lng, BOGOTA.lat, TECHNICIANS],
  );
  const env = { DATABASE_URL: opts.dbUrl, REDIS_URL: opts.redisUrl, QUEUE_PREFIX: opts.prefix, PORT: String(opts.port), WINDOW_MS: String(opts.windowMs), QUOTA_OFFERS_PER_MIN: '100000000' };
  const children: ChildProcess[] = [];
  const close = async () => {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
    await distribution.close();
    connection.disconnect(); // a connection given to BullMQ is the giver's to close
    await pool.end();
  };
  const connection = new Redis(opts.redisUrl, { maxRetriesPerRequest: null });
  const distribution = new Queue('pf-distribution', { connection, prefix: opts.prefix });
  try {
    for (const role of ROLES) children.push(await startRole(role, env));
  } catch (err) {
    await close();
    throw err;
  }
  const backlog = async () => {
    const c = await distribution.getJobCounts('waiting', 'active', 'delayed');
    return (c.waiting ?? 0) + (c.active ?? 0) + (c.delayed ?? 0);
  };
  return {
    port: opts.port,
    path: '/',
    headers: {},
    offer: (uuid) => ({ ...offerTemplate(), uuid }),
    processCpu: () =>
      new Map(
        children.map((c, i) => {
          const { user, system } = cpuMs(c.pid!);
          return [`pipeline floor ${ROLES[i]}`, user + system];
        }),
      ),
    backlog,
    settled: (maxMs) =>
      until(async () => (await backlog()) === 0 && (await pool.query(`select 1 from pf_offer where state = 'ABIERTA' limit 1`)).rowCount === 0, maxMs),
    async closedLate(uuids) {
      const list = `{${uuids.join(',')}}`;
      await until(async () => (await pool.query(`select 1 from pf_offer where state = 'ABIERTA' and uuid = any($1::uuid[]) limit 1`, [list])).rowCount === 0, opts.windowMs + 60_000);
      const { rows } = await pool.query<{ late: number }>(`select extract(epoch from (closed_at - deadline_at)) * 1000 as late from pf_offer where uuid = any($1::uuid[])`, [list]);
      return rows.map((r) => Number(r.late)).sort((a, b) => a - b);
    },
    close,
  };
}

function startRole(role: Role, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url)], { env: { ...process.env, ...env, [ROLE_ENV]: role }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`the pipeline floor's ${role} process exited with ${code}`)));
  });
}

const role = process.env[ROLE_ENV] as Role | undefined;
if (role) await runRole(role);
