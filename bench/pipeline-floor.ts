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
 *
 * With `duties` it is the contract floor (bench/contract-duties.ts, issue
 * 32's ISS32-10): its API first does what the contract asks of every
 * POST /oferta and inserts a uuid once (D3) with its audit row; each push is
 * a delivery with its attempt recorded (D18); each move has its audit row,
 * and an unanswered offer gets its expiry job (D1); its API also takes the
 * centrals' answers (PUT /aceptacion, D20), and an answered offer's closing
 * writes its 6.1, which a webhook-dispatch job in the closing's process signs,
 * sends and records (spec 6.1, D5, D18; issue 32's ISS32-16). The rest is the same.
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
import {
  CF_CLOSE_OFFER,
  CF_EXPIRE_OFFER,
  CF_INSERT_OFFER,
  CONTRACT_CENTRAL,
  cfAttempt,
  cfRecordRecipients,
  cfSendAcceptance,
  contractAcceptance,
  contractDuties,
  contractHeaders,
  provisionContract,
  type CfAcceptance,
} from './contract-duties.js';

const TECHNICIANS = 50;
const COVERAGE_M = 40_000;
const REACH_M = 10_000;
/** as the service's jobs are kept (src/queues/registry.ts) */
const KEPT = { removeOnComplete: 1000, removeOnFail: 5000 } as const;

const SCHEMA = `
create extension if not exists postgis;
drop table if exists pf_attempt, pf_delivery, pf_transition, pf_response, pf_recipient, pf_offer, pf_technician, pf_central, pf_api_user, pf_service_type cascade;
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
  const maxOpenMs = Number(process.env.MAX_OPEN_MS);
  const prefix = process.env.QUEUE_PREFIX!;
  const duties = process.env.PF_DUTIES === '1';
  // named, so that the bench can tell its backends apart in pg_stat_activity (bench/closing.ts)
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, application_name: `pf ${role}` });
  const connection = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
  const stops: Array<() => Promise<unknown>> = [];
  if (role === 'api') {
    const distribution = new Queue('pf-distribution', { connection, prefix });
    const evaluation = new Queue('pf-evaluation', { connection, prefix });
    const app = new Koa();
    app.use(bodyParser());
    if (duties) {
      const runtime = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1 });
      app.use(contractAcceptance(pool));
      app.use(contractDuties(pool, runtime, prefix));
      stops.push(async () => runtime.disconnect());
    }
    app.use(async (ctx) => {
      const body = ctx.request.body as { uuid: string; latitudOrigen: number; longitudOrigen: number };
      if (!duties) await pool.query({ name: 'insert-offer', text: INSERT_OFFER, values: [body.uuid, body, body.longitudOrigen, body.latitudOrigen, windowMs] });
      else {
        const values = [body.uuid, body, body.longitudOrigen, body.latitudOrigen, windowMs, maxOpenMs, `generator:${ctx.state.user.id}`, ctx.state.user.id];
        const { rowCount } = await pool.query({ name: 'insert-offer', text: CF_INSERT_OFFER, values });
        if (rowCount === 0) return void (ctx.body = { status: true, msg: 'LA OFERTA YA ESTÁ SIENDO PROCESADA' }); // D3 (its responses left out)
      }
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
        if (duties) return distributeWithDuties(job.data.offerUuid);
        const { rows } = await pool.query<{ url: string; technicians: number[]; body: unknown }>({ name: 'record-recipients', text: RECORD_RECIPIENTS, values: [job.data.offerUuid] });
        if (!rows.length) return;
        await publisher.publish(`${prefix}:technicians`, JSON.stringify({ offer: rows[0].body, technicians: rows.flatMap((r) => r.technicians) }));
        await Promise.all(rows.map((r) => http.post(r.url, { json: { offer: r.body, technicians: r.technicians } })));
      },
      { connection, prefix, concurrency: 10 },
    );
    // the contract floor's: each push a delivery with its attempt recorded (D18)
    const distributeWithDuties = async (offerUuid: string) => {
      const { rows } = await pool.query<{ id: string; url: string; technicians: number[]; body: { offer: unknown } }>({ name: 'record-recipients', text: cfRecordRecipients(REACH_M), values: [offerUuid] });
      if (!rows.length) return;
      await publisher.publish(`${prefix}:technicians`, JSON.stringify({ offer: rows[0].body.offer, technicians: rows.flatMap((r) => r.technicians) }));
      await Promise.all(
        rows.map((r) => cfAttempt(pool, http, { id: r.id, method: 'POST', url: r.url, raw: JSON.stringify(r.body), headers: { 'content-type': 'application/json', 'x-event-id': r.id } })),
      );
    };
    // the contract floor's: SIN_RESPUESTA → EXPIRADA (D1), one job per unanswered offer
    const expiry = duties
      ? new Worker('pf-expiry', async (job) => void (await pool.query({ name: 'expire-offer', text: CF_EXPIRE_OFFER, values: [job.data.offerUuid] })), { connection, prefix, concurrency: 10 })
      : undefined;
    stops.push(() => worker.close(), async () => expiry?.close(), async () => publisher.disconnect());
  } else {
    const expiry = duties ? new Queue('pf-expiry', { connection, prefix }) : undefined;
    const webhooks = duties ? new Queue('pf-webhook', { connection, prefix }) : undefined;
    const close = async (offerUuid: string) => {
      if (!expiry || !webhooks) return void (await pool.query({ name: 'close-offer', text: CLOSE_OFFER, values: [offerUuid] }));
      // the contract floor's: with its audit row, the expiry of an unanswered offer and the 6.1 of an answered one
      const { rows } = await pool.query<{ state: string; expiresAt: Date } & Partial<CfAcceptance>>({ name: 'close-offer', text: CF_CLOSE_OFFER, values: [offerUuid] });
      const r = rows[0];
      if (r?.state === 'SIN_RESPUESTA') await expiry.add('expire', { offerUuid }, { jobId: offerUuid, delay: Math.max(0, r.expiresAt.getTime() - Date.now()), ...KEPT });
      else if (r?.deliveryId) {
        const a: CfAcceptance = { deliveryId: String(r.deliveryId), url: r.url!, body: r.body, apiKey: r.apiKey!, secret: r.secret! };
        await webhooks.add('send', a, { jobId: `acceptance-${a.deliveryId}`, ...KEPT });
      }
    };
    const worker = new Worker('pf-evaluation', async (job) => close(job.data.offerUuid), { connection, prefix, concurrency: 1 });
    // the contract floor's 6.1 sends, in the closing's process with the service's concurrency (workers/index.ts)
    const sender = duties ? acceptanceSender(pool, connection, prefix) : undefined;
    stops.push(() => worker.close(), async () => sender?.close(), async () => expiry?.close(), async () => webhooks?.close());
  }
  process.send?.('ready'); // its parent, when started by startPipelineFloor
  process.once('SIGTERM', async () => {
    for (const stop of stops) await stop();
    connection.disconnect();
    await pool.end();
    process.exit(0);
  });
}

/** The contract floor's webhook-dispatch worker: each job one 6.1, sent and recorded (cfSendAcceptance), 50 at once. */
function acceptanceSender(pool: pg.Pool, connection: Redis, prefix: string): Worker {
  const http = got.extend({ retry: { limit: 0 }, timeout: { request: 5000 }, followRedirect: false, agent: { http: new Agent({ keepAlive: true, maxSockets: 50 }) } });
  return new Worker('pf-webhook', async (job) => void (await cfSendAcceptance(pool, http, job.data as CfAcceptance)), { connection, prefix, concurrency: 50 });
}

// ---------------------------------------------------------------- started by the bench

export interface PipelineFloor extends Pipeline {
  /** waits (up to maxMs) until no distribution (nor, in the contract floor, expiry or 6.1) is left and no window is open */
  settled(maxMs: number): Promise<boolean>;
  /** a statement on its database (`?` placeholders, as the bench's own `sql`) */
  sql<R extends object>(q: string, params?: unknown[]): Promise<R[]>;
  /** the evaluation jobs of these offers still kept, by offer uuid */
  evaluationJobs(uuids: readonly string[]): Promise<Map<string, { processedOn?: number; finishedOn?: number }>>;
  /** its technicians' dni */
  dnis: readonly string[];
  /** stops its processes (each finishes what it runs) */
  close(): Promise<void>;
}

interface FloorOptions {
  dbUrl: string;
  redisUrl: string;
  prefix: string;
  port: number;
  windowMs: number;
  /** an unanswered offer's expiry after its creation (the contract floor; by default a second after its window, as the bench's service) */
  maxOpenMs?: number;
  centralUrl: string;
  /** the contract floor: its API also does the contract's duties of a POST /oferta (bench/contract-duties.ts) */
  duties?: boolean;
  /** the contract floor: where its generator's 6.1 goes */
  generatorUrl?: string;
}

/** (Re)creates the pipeline floor's tables (`pf_`) in the pool's database, its central and technicians, and with `duties` the contract's generator. */
export async function createPipelineFloorTables(pool: pg.Pool, opts: Pick<FloorOptions, 'centralUrl' | 'duties' | 'generatorUrl'>): Promise<void> {
  await pool.query(SCHEMA);
  if (opts.duties) await provisionContract(pool, opts.generatorUrl);
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
  if (opts.duties) await pool.query('update pf_central set nit = $2, api_key = $3 where id = $1', [central, CONTRACT_CENTRAL.nit, CONTRACT_CENTRAL.apiKey]);
}

/** The environment of a process of the pipeline floor (this module run with `BENCH_PIPELINE_FLOOR_ROLE` set to its role). */
export function pipelineFloorEnv(opts: FloorOptions, role: Role): Record<string, string> {
  return {
    DATABASE_URL: opts.dbUrl,
    REDIS_URL: opts.redisUrl,
    QUEUE_PREFIX: opts.prefix,
    PORT: String(opts.port),
    WINDOW_MS: String(opts.windowMs),
    MAX_OPEN_MS: String(opts.maxOpenMs ?? opts.windowMs + 1000),
    PF_DUTIES: opts.duties ? '1' : '0',
    [ROLE_ENV]: role,
  };
}

export const PIPELINE_FLOOR_SCRIPT = fileURLToPath(import.meta.url);

/**
 * Creates the pipeline floor's tables in `dbUrl` (its own, `pf_`), one central covering the bench's origin with
 * TECHNICIANS technicians near it whose pushes go to `centralUrl`, and starts its three processes on `port`.
 */
export async function startPipelineFloor(opts: FloorOptions): Promise<PipelineFloor> {
  const pool = new pg.Pool({ connectionString: opts.dbUrl, max: 2 });
  await createPipelineFloorTables(pool, opts);
  const children: ChildProcess[] = [];
  const close = async () => {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
    await distribution.close();
    await expiry.close();
    await webhooks.close();
    await evaluation.close();
    connection.disconnect(); // a connection given to BullMQ is the giver's to close
    await pool.end();
  };
  const connection = new Redis(opts.redisUrl, { maxRetriesPerRequest: null });
  const distribution = new Queue('pf-distribution', { connection, prefix: opts.prefix });
  const expiry = new Queue('pf-expiry', { connection, prefix: opts.prefix });
  const webhooks = new Queue('pf-webhook', { connection, prefix: opts.prefix });
  const evaluation = new Queue('pf-evaluation', { connection, prefix: opts.prefix });
  try {
    for (const role of ROLES) children.push(await startRole(pipelineFloorEnv(opts, role)));
  } catch (err) {
    await close();
    throw err;
  }
  const pending = async (q: Queue) => {
    const c = await q.getJobCounts('waiting', 'active', 'delayed');
    return (c.waiting ?? 0) + (c.active ?? 0) + (c.delayed ?? 0);
  };
  const backlog = () => pending(distribution);
  return {
    port: opts.port,
    path: '/',
    headers: opts.duties ? contractHeaders() : {},
    offer: (uuid) => ({ ...offerTemplate(), uuid }),
    processCpu: () =>
      new Map(
        children.map((c, i) => {
          const { user, system } = cpuMs(c.pid!);
          return [`${opts.duties ? 'contract' : 'pipeline'} floor ${ROLES[i]}`, user + system];
        }),
      ),
    backlog,
    settled: (maxMs) =>
      until(async () => {
        const left = (await backlog()) + (await pending(expiry)) + (await pending(webhooks));
        return left === 0 && (await pool.query(`select 1 from pf_offer where state = 'ABIERTA' limit 1`)).rowCount === 0;
      }, maxMs),
    async sql<R extends object>(q: string, params: unknown[] = []) {
      let n = 0;
      return (await pool.query(q.replace(/\?/g, () => `$${++n}`), params)).rows as R[];
    },
    async evaluationJobs(uuids) {
      const jobs = await Promise.all(uuids.map((u) => evaluation.getJob(u)));
      return new Map(jobs.flatMap((j, i) => (j ? [[uuids[i], { processedOn: j.processedOn, finishedOn: j.finishedOn }] as const] : [])));
    },
    dnis: Array.from({ length: TECHNICIANS }, (_, i) => `BENCH-T${i + 1}`),
    async closedLate(uuids) {
      const list = `{${uuids.join(',')}}`;
      await until(async () => (await pool.query(`select 1 from pf_offer where state = 'ABIERTA' and uuid = any($1::uuid[]) limit 1`, [list])).rowCount === 0, opts.windowMs + 60_000);
      const { rows } = await pool.query<{ late: number }>(`select extract(epoch from (closed_at - deadline_at)) * 1000 as late from pf_offer where uuid = any($1::uuid[])`, [list]);
      return rows.map((r) => Number(r.late)).sort((a, b) => a - b);
    },
    close,
  };
}

function startRole(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [PIPELINE_FLOOR_SCRIPT], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`the pipeline floor's ${env[ROLE_ENV]} process exited with ${code}`)));
  });
}

const role = process.env[ROLE_ENV] as Role | undefined;
if (role) await runRole(role);
