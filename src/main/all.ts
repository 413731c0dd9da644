/**
 * `npm start`: the whole service on one machine (issue 12, items 3 and 6).
 * Migrates when needed and loads the demo document into an empty database
 * outside production, once; then supervises, as child processes (see
 * supervisor.ts):
 * - the API: WEB_PROCESSES processes sharing PORT (by default the cores less
 *   the background worker processes, at least one);
 * - one time-critical worker: the deadline's evaluation and the 6.1 send
 *   (TIME_CRITICAL_QUEUES), above the API's CPU priority where it may
 *   (TIME_CRITICAL_NICE, docs/decisions.md TC-5);
 * - WORKER_PROCESSES background workers: distribution, state notifications,
 *   SMS, at a lower CPU priority (nice BACKGROUND_NICE), so that when the
 *   cores are busy the API and the closing windows are served first and a
 *   distribution backlog waits (docs/decisions.md, "Auction under load").
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { ensureDatabase, migrate } from '../db/database.js';
import { logger } from '../logger.js';
import { loadDemoIfEmpty } from '../provisioning/demo.js';
import { printLinks, warnUnsafeDefaults } from './banner.js';
import { QUEUE_NAMES, TIME_CRITICAL_QUEUES } from '../queues/registry.js';
import { configOrExit, createRuntime } from './runtime.js';
import { supervise } from './supervisor.js';

const cfg = configOrExit();
const log = logger();
warnUnsafeDefaults(cfg, { demo: true });
await ensureDatabase(cfg.databaseUrl);
// migrations and the demo may run long statements: no client-side statement limit for them
const rt = await createRuntime({ ...cfg, dbQueryTimeoutMs: 0 }, { log });
try {
  // the demo under the migrations' lock: two first starts at once load it once
  const applied = await migrate(rt.orm, async () => cfg.nodeEnv !== 'production' && (await loadDemoIfEmpty(rt)));
  if (applied.length) log.info({ applied }, 'migrations applied');
} finally {
  await rt.close();
}
printLinks(cfg, { demo: cfg.nodeEnv !== 'production' });

const BACKGROUND_QUEUES = QUEUE_NAMES.filter((q) => !TIME_CRITICAL_QUEUES.includes(q));
/** nice of the background workers: they get what the API and the time-critical worker leave */
const BACKGROUND_NICE = 10;
/**
 * ISS32-6: V8 drops the bytecode of functions that have not run for a few garbage collections; after a quiet spell the
 * time-critical worker then compiled its whole closing path again (the pool, the driver, the ORM's transaction, ours)
 * while the first window was due. It keeps it.
 */
const TIME_CRITICAL_NODE_ARGS = ['--no-flush-bytecode'] as const;

const workers = cfg.workerProcesses;
const web = cfg.webProcesses || Math.max(1, availableParallelism() - workers);
const workerScript = fileURLToPath(new URL('../../workers/main.js', import.meta.url));
log.info({ port: cfg.port, web, workers: 1 + workers, cores: availableParallelism() }, 'starting api and worker processes');
supervise(
  [
    { role: 'web', script: fileURLToPath(new URL('./web.js', import.meta.url)), count: web, cluster: true },
    {
      role: 'worker:time-critical',
      script: workerScript,
      count: 1,
      cluster: false,
      env: { WORKER_QUEUES: TIME_CRITICAL_QUEUES.join(','), WORKER_NICE: String(cfg.timeCriticalNice) },
      nodeArgs: TIME_CRITICAL_NODE_ARGS,
    },
    {
      role: 'worker:background',
      script: workerScript,
      count: workers,
      cluster: false,
      env: { WORKER_QUEUES: BACKGROUND_QUEUES.join(','), WORKER_NICE: String(BACKGROUND_NICE) },
    },
  ],
  // every child keeps a stop signal from its first moment, before even its entry's modules are read
  { log, shutdownTimeoutMs: cfg.shutdownTimeoutMs, preload: new URL('./stopSignals.js', import.meta.url).href },
);
