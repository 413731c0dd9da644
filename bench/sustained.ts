/**
 * Issue 12, item 2: the sustained rate of a pipeline (the service, or the
 * pipeline floor of bench/pipeline-floor.ts), measured the same way for both
 * in bench:auction.
 *
 * Offers are posted at each rate in turn, each for the window plus STEADY_S
 * seconds, so the windows of a step's first STEADY_S seconds close while it
 * still posts at its rate: the pipeline creates, distributes and closes at
 * that one rate at once (a steady state), and the step's lateness is read on
 * those windows only. A step is kept up when every request was answered 200
 * within a second of its end and the distribution backlog a second after it
 * is under a second's worth; the steps stop at the first one not kept up. The
 * sustained rate is the highest kept-up step whose windows also closed with
 * deadline → closed p99 ≤ PUNCTUAL_MS (item 3). For each step, where the CPU
 * went over its last STEADY_S seconds: each process of the pipeline, the
 * machine's PostgreSQL and Redis processes, and the bench itself.
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { cpuByPid, spentSince } from './cpu.js';
import { f0, f1, f2 } from './format.js';

/** the seconds of a step whose windows close within it, over which its CPU is read */
export const STEADY_S = 5;
/** item 3's bound (ms, p99) on deadline → window closed, which a rate must keep to count as sustained */
export const PUNCTUAL_MS = 50;

/** A pipeline under load: where offers are posted, and what the steps read of it. */
export interface Pipeline {
  port: number;
  path: string;
  headers: Record<string, string>;
  /** a 1 KB offer with this uuid */
  offer(uuid: string): Record<string, unknown>;
  /** CPU ms so far of each of its processes, by name */
  processCpu(): Map<string, number>;
  /** distribution jobs not yet done */
  backlog(): Promise<number>;
  /** deadline → window closed (ms) of these offers, once none of them is open */
  closedLate(uuids: readonly string[]): Promise<number[]>;
  /** before each step (the service: its technicians' positions made fresh) */
  beforeStep?(): Promise<void>;
  /** as each step's last STEADY_S seconds start and end (bench:auction reads PostgreSQL's statistics over them) */
  steadyStarted?(): Promise<void>;
  steadyEnded?(rate: number): Promise<void>;
}

export interface Step {
  rate: number;
  /** distribution jobs left a second after the step */
  backlog: number;
  /** answers other than 200, by status or, for a request that got no answer, the client's error code */
  codes: Record<string, number>;
  refused: number;
  keptUp: boolean;
  /** s from the step's start to its last answer */
  answeredS: number;
  /** deadline → closed (ms, ascending) of its first STEADY_S seconds' offers: read for kept-up steps only */
  late?: number[];
  /** CPU ms over its last STEADY_S seconds, by part, and how long that was (s) */
  cpu: { parts: Array<[string, number]>; seconds: number };
}

export interface Sustained {
  steps: Step[];
  /** offers per second: the highest kept-up, punctual step (0: none) */
  rate: number;
  /** deadline → closed (ms) at that rate, or at the last kept-up step when none was punctual */
  late: number[];
}

export interface CpuSnapshot {
  processes: Map<string, number>;
  postgres: Map<number, number>;
  redis: Map<number, number>;
  bench: number;
}

export function pct(sorted: readonly number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 200 ms until it returns true or `maxMs` passes; returns whether it did. */
export async function until(check: () => Promise<boolean>, maxMs: number): Promise<boolean> {
  const end = Date.now() + maxMs;
  while (Date.now() < end) {
    if (await check()) return true;
    await sleep(200);
  }
  return false;
}

/**
 * POSTs an offer as JSON: the status, or the client's error code (a request that got no answer). A request sent
 * on a kept-alive socket that the server closed as it was reused (ECONNRESET on a reused socket, the race Node's
 * documentation describes for `request.reusedSocket`) is sent again once on a new one: the bench's own race, not
 * a refusal by the server (seen failing whole steps now and then). The uuid makes the repeat harmless.
 */
export function postOffer(p: Pipeline, agent: Agent, uuid: string, retried = false): Promise<number | string> {
  return new Promise((resolve) => {
    const payload = JSON.stringify(p.offer(uuid));
    const req = request(
      { host: '127.0.0.1', port: p.port, path: p.path, method: 'POST', agent, headers: { ...p.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (!retried && req.reusedSocket && err.code === 'ECONNRESET') resolve(postOffer(p, agent, uuid, true));
      else resolve(err.code ?? 'error');
    });
    req.end(payload);
  });
}

/** The CPU so far of a pipeline's processes, the machine's PostgreSQL and Redis, and the bench. */
export function cpuSnapshot(p: Pick<Pipeline, 'processCpu'>): CpuSnapshot {
  const own = process.cpuUsage();
  return { processes: p.processCpu(), postgres: cpuByPid('postgres'), redis: cpuByPid('redis-server'), bench: (own.user + own.system) / 1000 };
}

/** CPU ms spent between two snapshots, by part. */
export function cpuSpent(a: CpuSnapshot, b: CpuSnapshot): Array<[string, number]> {
  return [
    ...[...b.processes].map(([name, ms]): [string, number] => [name, ms - (a.processes.get(name) ?? 0)]),
    ['PostgreSQL', spentSince(a.postgres, b.postgres)],
    ['Redis', spentSince(a.redis, b.redis)],
    ['the bench (load, receivers)', b.bench - a.bench],
  ];
}

/** One step at `rate` (see above): posts for the window plus STEADY_S seconds, then reads what it left. */
export async function runStep(p: Pipeline, rate: number, opts: { windowMs: number; connections: number }): Promise<Step> {
  const stepS = opts.windowMs / 1000 + STEADY_S;
  await p.beforeStep?.();
  // a fresh agent per step: a socket left idle across the wait between steps could be reused just as the
  // server closes it (its keep-alive timeout), a client-side race, not a refusal
  const agent = new Agent({ keepAlive: true, maxSockets: opts.connections });
  const t0 = performance.now();
  const sent: Array<Promise<number | string>> = [];
  const uuids: string[] = [];
  let steady: { cpu: CpuSnapshot; at: number } | undefined;
  for (let i = 0; i < rate * stepS; i++) {
    const wait = t0 + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    if (!steady && i >= rate * (stepS - STEADY_S)) {
      await p.steadyStarted?.();
      steady = { cpu: cpuSnapshot(p), at: performance.now() };
    }
    const uuid = randomUUID();
    uuids.push(uuid);
    sent.push(postOffer(p, agent, uuid));
  }
  const cpu = { parts: cpuSpent(steady!.cpu, cpuSnapshot(p)), seconds: (performance.now() - steady!.at) / 1000 };
  await p.steadyEnded?.(rate);
  const statuses = await Promise.all(sent);
  const answeredS = (performance.now() - t0) / 1000;
  agent.destroy();
  await sleep(1000);
  const backlog = await p.backlog();
  const codes: Record<string, number> = {};
  for (const c of statuses) if (c !== 200) codes[c] = (codes[c] ?? 0) + 1;
  const refused = statuses.filter((c) => c !== 200).length;
  const keptUp = backlog <= rate && !refused && answeredS <= stepS + 1;
  const step: Step = { rate, backlog, codes, refused, keptUp, answeredS, cpu };
  if (!keptUp) return step;
  step.late = await p.closedLate(uuids.slice(0, rate * STEADY_S));
  await until(async () => (await p.backlog()) === 0, 30_000);
  return step;
}

/** The sustained rate of a pipeline: its steps at `rates` in turn, up to its first step not kept up (see above). */
export async function sustainedRate(p: Pipeline, opts: { rates: readonly number[]; windowMs: number; connections: number }): Promise<Sustained> {
  const steps: Step[] = [];
  for (const rate of opts.rates) {
    const step = await runStep(p, rate, opts);
    steps.push(step);
    if (!step.keptUp) break;
  }
  const kept = steps.filter((s) => s.keptUp);
  const punctual = kept.filter((s) => pct(s.late!, 99) <= PUNCTUAL_MS);
  return { steps, rate: punctual.at(-1)?.rate ?? 0, late: (punctual.at(-1) ?? kept.at(-1))?.late ?? [] };
}

/** A step in a line: rate→jobs queued a second after it, its windows' p99, what went wrong. */
export function stepText(s: Step, windowMs: number): string {
  return `${s.rate}→${s.backlog}${s.late ? ` (closed p99 ${f0(pct(s.late, 99))})` : ''}${s.refused ? ` (${s.refused} not 200: ${JSON.stringify(s.codes)})` : ''}${
    s.answeredS > windowMs / 1000 + STEADY_S + 1 ? ` (answered in ${f1(s.answeredS)} s)` : ''
  }`;
}

/** Where the CPU went in each step's steady seconds: cores busy, then ms per offer by part (`labels` shortens names). */
export function printCpu(title: string, steps: readonly Step[], labels: Record<string, string> = {}): void {
  console.log(`\nwhere the CPU went in each step's last ${STEADY_S} s, ${title} (creating, distributing and closing at its rate): cores busy of ${availableParallelism()}, then ms per offer`);
  for (const { rate, cpu } of steps) {
    const offers = rate * cpu.seconds;
    const all = cpu.parts.reduce((sum, [, ms]) => sum + ms, 0);
    const each = cpu.parts.map(([name, ms]) => `${labels[name] ?? name} ${f2(ms / offers)}`).join(', ');
    console.log(`  ${String(rate).padStart(5)}/s  ${f2(all / 1000 / cpu.seconds)} cores  all ${f2(all / offers)} = ${each}`);
  }
}
