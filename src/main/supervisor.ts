/**
 * The `npm start` supervisor (issue 12, item 6): runs each role as child
 * processes (API processes through node:cluster, so they share one port;
 * workers through child_process.fork), restarts a child that dies
 * unexpectedly after a backoff, forwards SIGTERM/SIGINT to every child, waits
 * for their drains and exits 0 (1 when a child's drain failed or the
 * supervisor's own deadline passed). Children exit when the supervisor's IPC
 * channel closes, so killing the supervisor leaves no orphans (see
 * onShutdown; cluster children exit at once by Node's own rule).
 */
import { fork, type ChildProcess } from 'node:child_process';
import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { SUPERVISOR_ENV } from './shutdown.js';

export interface RoleSpec {
  role: string;
  /** the compiled entry point */
  script: string;
  count: number;
  /** start through node:cluster (children share listening ports with each other) */
  cluster: boolean;
  /** over the supervisor's environment */
  env?: Record<string, string>;
  /** node options of this role's processes, after the supervisor's own */
  nodeArgs?: readonly string[];
}

export interface SupervisorOptions {
  log: Logger;
  /** the children's own drain limit (SHUTDOWN_TIMEOUT_MS); the supervisor waits this plus `graceMs` */
  shutdownTimeoutMs: number;
  graceMs?: number;
  /** first restart delay after an unexpected exit; doubles for each quick death in a row */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** a child that lived this long before dying starts its backoff over */
  stableMs?: number;
  /**
   * A module URL every child loads with `--import` before its entry point
   * (src/main/stopSignals.ts: a stop signal is kept from the first moment).
   */
  preload?: string;
}

interface Slot {
  spec: RoleSpec;
  index: number;
  child?: ChildProcess;
  startedAt: number;
  /** quick deaths in a row */
  failures: number;
  restart?: NodeJS.Timeout;
}

/** The restart delay after the n-th quick death in a row (n ≥ 1). */
export function restartDelay(failures: number, backoffMs: number, maxBackoffMs: number): number {
  return Math.min(maxBackoffMs, backoffMs * 2 ** Math.max(0, failures - 1));
}

export function supervise(roles: RoleSpec[], opts: SupervisorOptions): void {
  const { log, shutdownTimeoutMs, graceMs = 5000, backoffMs = 1000, maxBackoffMs = 30000, stableMs = 30000 } = opts;
  const slots: Slot[] = roles.flatMap((spec) => Array.from({ length: spec.count }, (_, index) => ({ spec, index, startedAt: 0, failures: 0 })));
  let stopping = false;
  let failedDrains = 0;

  const spawnChild = (spec: RoleSpec): ChildProcess => {
    const env = { ...process.env, ...spec.env, [SUPERVISOR_ENV]: String(process.pid) };
    // the supervisor's own node options (--cpu-prof in the bench) go on, then the role's, then the preload
    const execArgv = [...process.execArgv, ...(spec.nodeArgs ?? []), ...(opts.preload ? ['--import', opts.preload] : [])];
    if (spec.cluster) {
      cluster.setupPrimary({ exec: spec.script, args: [], execArgv });
      return cluster.fork(env).process;
    }
    return fork(spec.script, [], { stdio: 'inherit', env, execArgv });
  };

  const finishIfDone = () => {
    if (!stopping || slots.some((s) => s.child)) return;
    const code = failedDrains ? 1 : 0;
    log.info({ code }, 'bye');
    process.exit(code);
  };

  const start = (slot: Slot) => {
    slot.restart = undefined;
    const child = spawnChild(slot.spec);
    slot.child = child;
    slot.startedAt = Date.now();
    log.info({ role: slot.spec.role, index: slot.index, child: child.pid }, 'child started');
    child.on('error', (err) => log.error({ role: slot.spec.role, child: child.pid, err }, 'child process error'));
    child.once('exit', (code, signal) => {
      slot.child = undefined;
      if (stopping) {
        if (code !== 0) failedDrains += 1;
        log[code === 0 ? 'info' : 'error']({ role: slot.spec.role, child: child.pid, code, signal }, 'child stopped');
        finishIfDone();
        return;
      }
      slot.failures = Date.now() - slot.startedAt < stableMs ? slot.failures + 1 : 1;
      const delay = restartDelay(slot.failures, backoffMs, maxBackoffMs);
      log.error({ role: slot.spec.role, child: child.pid, code, signal, restartInMs: delay }, 'child exited unexpectedly, restarting');
      slot.restart = setTimeout(() => start(slot), delay);
    });
  };

  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    for (const slot of slots) {
      if (slot.restart) clearTimeout(slot.restart);
      slot.restart = undefined;
      slot.child?.kill('SIGTERM');
    }
    const deadline = setTimeout(() => {
      const left = slots.filter((s) => s.child);
      log.error({ children: left.map((s) => s.child?.pid) }, 'children took too long to drain, killing them');
      for (const s of left) s.child?.kill('SIGKILL');
      process.exit(1);
    }, shutdownTimeoutMs + graceMs);
    deadline.unref();
    finishIfDone();
  };

  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  for (const slot of slots) start(slot);
}
