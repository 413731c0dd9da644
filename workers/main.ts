/**
 * The `worker` role: the queue processors, for every queue or for those of
 * WORKER_QUEUES; WORKER_NICE lowers this process's CPU priority so that the
 * API and the time-critical worker are served first when the cores are busy
 * (`npm start` runs its background workers so, see src/main/all.ts). On Linux
 * the nice value is per thread: it is set on the main (JavaScript) thread,
 * before the workers start, and threads created later inherit it.
 */
// First: keeps SIGTERM/SIGINT from before the other modules load (see src/main/stopSignals.ts).
import { keptStopSignals } from '../src/main/stopSignals.js';
import { getPriority, setPriority } from 'node:os';
import { warnUnsafeDefaults } from '../src/main/banner.js';
import { logger } from '../src/logger.js';
import { configOrExit, createRuntime } from '../src/main/runtime.js';
import { holdStopSignals, onShutdown } from '../src/main/shutdown.js';
import { keptDbConnections, startWorkers } from './index.js';
import { publishMetrics } from '../src/metrics/metrics.js';

const cfg = configOrExit();
const log = logger();
holdStopSignals(log, cfg.shutdownTimeoutMs, keptStopSignals);
warnUnsafeDefaults(cfg, { demo: false });
const rt = await createRuntime(cfg, { log, role: `worker ${cfg.workerQueues.join(',')}`, keptDbConnections: keptDbConnections(cfg.workerQueues) });
if (cfg.workerNice !== 0) {
  try {
    setPriority(cfg.workerNice);
  } catch (err) {
    // raising it (a negative nice) needs CAP_SYS_NICE: an ordinary deployment runs at the default, which is no fault
    const raise = cfg.workerNice < 0;
    rt.log[raise ? 'info' : 'warn']({ err: String(err), nice: cfg.workerNice }, `could not ${raise ? 'raise' : 'lower'} the worker process priority; running at the default`);
  }
}
const group = await startWorkers(rt);
rt.log.info({ queues: group.workers.map((w) => w.name), nice: getPriority() }, 'workers running');
// with its heartbeat, naming the queues it takes (broker_queue_worker_processes)
const stopMetrics = publishMetrics(rt.redis, cfg.queuePrefix, 'worker', group.workers.map((w) => w.name));
onShutdown(rt.log, [
  ['workers', () => group.close()],
  ['metrics', stopMetrics],
  ['runtime', () => rt.close()],
], rt.config.shutdownTimeoutMs);
