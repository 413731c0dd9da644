/**
 * The closing of windows, measured from outside (bench:auction items 4 and issue 32's "punctual under backlog"):
 * `offers` offers posted over `spreadMs`, each answered by the central (PUT /aceptacion) once its push reached the
 * central's receiver (D20: no answer to an offer never sent; one whose push came after its window closes
 * SIN_RESPUESTA); then, as their windows close, deadline → selection committed (the offer_transition row out of
 * ABIERTA, every window) and deadline → 6.1 request received by the generator's receiver (every answered one), with
 * what lies in between (selection → delivery claimed by its sender → request received).
 *
 * While the windows close, the time-critical worker's PostgreSQL backends are sampled every SAMPLE_MS in
 * pg_stat_activity (its connections carry `application_name` "broker worker offer-evaluation,…"): what its
 * statements were doing (on the CPU, waiting for a lock, waiting for the worker's next command, idle), the closing
 * path's profile as PostgreSQL sees it; and the CPU each process of the service spent meanwhile.
 *
 * The same step runs against the contract floor (ISS32-16), whose paths, tables and processes the world names.
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { treeProcesses } from './cpu.js';
import { pct, sleep, until } from './sustained.js';

/**
 * The sampler is the bench's own load on the host it measures: each sample cost 1.7 ms of a PostgreSQL backend's CPU
 * and 0.8 ms of the bench's (a loop of 400 samples, measured on issue 32's fifth-session host), so every
 * 10 ms it took about a fifth of a core from the closing it watched. Every 100 ms by default (BENCH_SAMPLE_MS: finer
 * for a closer look, at that cost).
 */
export const SAMPLE_MS = Number(process.env.BENCH_SAMPLE_MS ?? 100);
const TIME_CRITICAL_APP = 'broker worker offer-evaluation%';

/** Where a pipeline keeps what the step reads: the service's tables by default. */
export interface ClosingTables {
  offer: string;
  transition: string;
  delivery: string;
  /** the delivery's column that tells when its 6.1 was claimed for sending */
  claimedAt: string;
}
const SERVICE_TABLES: ClosingTables = { offer: 'offer', transition: 'offer_transition', delivery: 'webhook_delivery', claimedAt: 'sent_at' };

export interface ClosingWorld {
  port: number;
  basic: string;
  centralKey: string;
  centralNit: string;
  dnis: readonly string[];
  offer(uuid: string): Record<string, unknown>;
  /** resolves true once the central has received the offer's push, false after `ms` */
  pushed(uuid: string, ms: number): Promise<boolean>;
  /** offer uuid → when its 6.1 request arrived (epoch ms) */
  acceptances: ReadonlyMap<string, number>;
  sql<R extends object>(q: string, params?: unknown[]): Promise<R[]>;
  /** distribution jobs not done */
  backlog(): Promise<number>;
  /** the service's root process (its processes' CPU, unless `processCpu` says) */
  pid: number;
  /** CPU ms so far of each process of the pipeline, by name */
  processCpu?(): Map<string, number>;
  /** POST /oferta's and PUT /aceptacion's paths (the service's by default) */
  paths?: { offer: string; acceptance: string };
  tables?: ClosingTables;
  /** the `application_name` (a LIKE pattern) of the closing's PostgreSQL connections */
  timeCriticalApp?: string;
  windowMs: number;
  /** how long the waits may last */
  boundMs: number;
  /** the evaluation jobs of these offers still kept (the ones that ran; a batch withdraws the others'), by offer uuid */
  evaluationJobs?(uuids: readonly string[]): Promise<Map<string, { processedOn?: number; finishedOn?: number }>>;
  /** as the first window closes and once all closed (bench:auction's pg_stat_statements) */
  closingStarted?(): Promise<void>;
  closingEnded?(): Promise<void>;
}

export interface Closing {
  offers: number;
  /** not 200, or never pushed within the window (so not answered) */
  refused: number;
  /** pushes that reached the central only after the window closed (the offer was not answerable) */
  pushedLate: number;
  postedInS: number;
  backlogAtFirstDeadline: number;
  settled: boolean;
  /** ms, ascending */
  selectionLate: number[];
  notifyLate: number[];
  claimLate: number[];
  sendLate: number[];
  /** windows closed together (a batch's selections share their time), ascending */
  batchSizes: number[];
  /** the evaluation jobs that ran (the others were withdrawn by a batch): deadline → job started, and its run time (ms, ascending) */
  jobStartLate: number[];
  jobRun: number[];
  outcomes: Record<string, number>;
  /** deadline → selection (ms): the slowest in each half-second of deadlines from the first, in order */
  worstByHalfSecond: number[];
  /** CPU ms per window of each process of the service while they closed */
  cpuPerWindow: Array<[string, number]>;
  /** the time-critical worker's backends in pg_stat_activity while the windows closed: what share of samples each state had */
  backends: Array<[string, number]>;
  /** the other backends at work in those samples (active, or an autovacuum worker), by role */
  otherBackends: Array<[string, number]>;
  samples: number;
  /**
   * the bench's own event-loop delay while the windows closed, p99 and max (ms): the 6.1's arrival is timed when the
   * bench's receiver reads the request, so a busy bench adds its delay to the 6.1's lateness
   */
  benchLoopDelay: { p99: number; max: number };
}

const sortNum = (xs: number[]) => [...xs].sort((a, b) => a - b);

export async function closingStep(w: ClosingWorld, offers: number, spreadMs: number): Promise<Closing> {
  const t = w.tables ?? SERVICE_TABLES;
  const paths = w.paths ?? { offer: '/api/v3/oferta', acceptance: '/api/v3/aceptacion' };
  const app = w.timeCriticalApp ?? TIME_CRITICAL_APP;
  const cpuNow = () => w.processCpu?.() ?? cpuByName(w.pid);
  const uuids: string[] = [];
  let refused = 0;
  let pushedLate = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: 50 });
  const call = (method: string, path: string, headers: Record<string, string>, body: unknown) =>
    new Promise<number>((resolve) => {
      const payload = JSON.stringify(body);
      const req = request(
        { host: '127.0.0.1', port: w.port, path, method, agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', () => resolve(0));
      req.end(payload);
    });
  const start = performance.now();
  const posts: Array<Promise<void>> = [];
  for (let i = 0; i < offers; i++) {
    const wait = start + (i * spreadMs) / offers - performance.now();
    if (wait > 0) await sleep(wait);
    const uuid = randomUUID();
    uuids.push(uuid);
    const postedAt = performance.now();
    posts.push(
      (async () => {
        const created = await call('POST', paths.offer, { authorization: w.basic }, w.offer(uuid));
        if (created !== 200) {
          refused++;
          return;
        }
        // The central answers an offer once it has received it (D20 refuses an answer to an offer never sent to it),
        // if that was before its window closed (its deadline is the window after its creation, give or take the request)
        const left = w.windowMs - (performance.now() - postedAt) - 50;
        if (left <= 0 || !(await w.pushed(uuid, left))) {
          pushedLate++;
          return;
        }
        const answered = await call('PUT', paths.acceptance, { 'x-apikey': w.centralKey }, { id: uuid, dniPrestador: w.centralNit, dniTecnico: w.dnis[i % w.dnis.length], tiempoLlegadaSitio: 10 });
        if (answered !== 200) refused++;
      })(),
    );
  }
  // the offers are posted; their answers may still wait for the pushes
  const postedInS = (performance.now() - start) / 1000;
  const list = `{${uuids.join(',')}}`;
  const firstDeadline = (await w.sql<{ d: Date }>(`select min(deadline_at) as d from ${t.offer} where uuid = any(?::uuid[])`, [list]))[0].d;
  await sleep(Math.max(0, new Date(firstDeadline).getTime() - Date.now() - 200));
  // sampling starts a little before the first deadline, so that a closing already late is seen whole
  const samples: Record<string, number> = {};
  /** the other backends at work meanwhile (active, or autovacuum), by role */
  const others: Record<string, number> = {};
  let sampled = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const rows = await w.sql<{ s: string; mine: boolean }>(
        `select application_name like '${app}' as mine,
                case when application_name like '${app}'
                     then case when state = 'active' then coalesce(wait_event_type || ':' || wait_event, 'running (CPU)') else state || coalesce(' (' || wait_event || ')', '') end
                     else coalesce(nullif(application_name, ''), backend_type) end as s
           from pg_stat_activity
          where pid <> pg_backend_pid() and (application_name like '${app}' and datname = current_database() or state = 'active' or backend_type like 'autovacuum%')`,
      );
      sampled++;
      for (const r of rows) (r.mine ? samples : others)[r.s] = ((r.mine ? samples : others)[r.s] ?? 0) + 1;
      await sleep(SAMPLE_MS);
    }
  })();
  await sleep(Math.max(0, new Date(firstDeadline).getTime() - Date.now()));
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  const backlogAtFirstDeadline = await w.backlog();
  await w.closingStarted?.();
  const cpu0 = cpuNow();
  const open = async () => Number((await w.sql<{ n: string }>(`select count(*) as n from ${t.offer} where state = 'ABIERTA' and uuid = any(?::uuid[])`, [list]))[0].n);
  await Promise.all(posts);
  const settled = await until(async () => (await open()) === 0 && uuids.filter((u) => w.acceptances.has(u)).length >= answeredCount(), w.windowMs + w.boundMs);
  loopDelay.disable();
  sampling = false;
  await sampler;
  const cpu1 = cpuNow();
  await w.closingEnded?.();
  agent.destroy();

  function answeredCount() {
    return offers - refused - pushedLate;
  }

  const rows = await w.sql<{ uuid: string; deadline: Date; selected: Date | null; to_state: string | null; claimed: Date | null }>(
    `select o.uuid, o.deadline_at as deadline, t.at as selected, t.to_state,
            (select d.${t.claimedAt} from ${t.delivery} d where d.offer_uuid = o.uuid and d.kind = 'acceptance' limit 1) as claimed
       from ${t.offer} o
       left join lateral (select at, to_state from ${t.transition} t where t.offer_uuid = o.uuid and t.from_state = 'ABIERTA' order by id limit 1) t on true
      where o.uuid = any(?::uuid[])`,
    [list],
  );
  const at = (d: Date | null) => (d ? new Date(d).getTime() : NaN);
  const selectionLate = sortNum(rows.filter((r) => r.selected).map((r) => at(r.selected) - at(r.deadline)));
  const notifyLate = sortNum(rows.filter((r) => w.acceptances.has(r.uuid)).map((r) => w.acceptances.get(r.uuid)! - at(r.deadline)));
  const claimLate = sortNum(rows.filter((r) => r.selected && r.claimed).map((r) => at(r.claimed) - at(r.selected)));
  const sendLate = sortNum(rows.filter((r) => r.claimed && w.acceptances.has(r.uuid)).map((r) => w.acceptances.get(r.uuid)! - at(r.claimed)));
  const jobs = (await w.evaluationJobs?.(uuids)) ?? new Map<string, { processedOn?: number; finishedOn?: number }>();
  const ran = rows.map((r) => ({ r, job: jobs.get(r.uuid) })).filter((x) => x.job?.processedOn);
  const jobStartLate = sortNum(ran.map(({ r, job }) => job!.processedOn! - at(r.deadline)));
  const jobRun = sortNum(ran.filter(({ job }) => job!.finishedOn).map(({ job }) => job!.finishedOn! - job!.processedOn!));
  const batches = new Map<number, number>();
  for (const r of rows) if (r.selected) batches.set(at(r.selected), (batches.get(at(r.selected)) ?? 0) + 1);
  const batchSizes = sortNum([...batches.values()]);
  const first = Math.min(...rows.map((r) => at(r.deadline)));
  const worstByHalfSecond: number[] = [];
  for (const r of rows.filter((x) => x.selected)) {
    const i = Math.floor((at(r.deadline) - first) / 500);
    worstByHalfSecond[i] = Math.max(worstByHalfSecond[i] ?? 0, at(r.selected) - at(r.deadline));
  }
  const outcomes: Record<string, number> = {};
  for (const r of rows) outcomes[r.to_state ?? 'ABIERTA'] = (outcomes[r.to_state ?? 'ABIERTA'] ?? 0) + 1;
  const cpuPerWindow = [...cpu1].map(([name, ms]) => [name, (ms - (cpu0.get(name) ?? 0)) / offers] as [string, number]);
  const backends = Object.entries(samples).sort((a, b) => b[1] - a[1]);
  return {
    offers,
    refused,
    pushedLate,
    postedInS,
    backlogAtFirstDeadline,
    settled,
    selectionLate,
    notifyLate,
    claimLate,
    sendLate,
    batchSizes,
    jobStartLate,
    jobRun,
    outcomes,
    worstByHalfSecond: [...worstByHalfSecond].map((x) => x ?? 0),
    cpuPerWindow,
    backends,
    otherBackends: Object.entries(others).sort((a, b) => b[1] - a[1]),
    samples: sampled,
    benchLoopDelay: { p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 },
  };
}

/** CPU ms so far of each process of the service, by name (several API processes add up). */
function cpuByName(root: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of treeProcesses(root)) out.set(p.name, (out.get(p.name) ?? 0) + p.cpuS * 1000);
  return out;
}

/** p50 / p99 / max of a sorted list, as printed */
export function spread(xs: readonly number[]): string {
  if (!xs.length) return '—';
  return `${Math.round(pct(xs as number[], 50))} / ${Math.round(pct(xs as number[], 99))} / ${Math.round(xs[xs.length - 1])}`;
}
