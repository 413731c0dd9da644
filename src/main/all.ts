/**
 * `npm start`: the whole service on one machine (issue 12, item 6). Migrates
 * when needed and loads the demo document into an empty database outside
 * production, once; then supervises the API (WEB_PROCESSES processes sharing
 * PORT; by default the cores less the worker processes, at least one) and the
 * workers (WORKER_PROCESSES) as child processes: see supervisor.ts.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { ensureDatabase, migrate } from '../db/database.js';
import { logger } from '../logger.js';
import { loadDemoIfEmpty } from '../provisioning/demo.js';
import { warnUnsafeDefaults } from './banner.js';
import { configOrExit, createRuntime } from './runtime.js';
import { supervise } from './supervisor.js';

const cfg = configOrExit();
const log = logger();
warnUnsafeDefaults(cfg, { demo: true });
await ensureDatabase(cfg.databaseUrl);
const rt = await createRuntime(cfg, { log });
try {
  // the demo under the migrations' lock: two first starts at once load it once
  const applied = await migrate(rt.orm, async () => cfg.nodeEnv !== 'production' && (await loadDemoIfEmpty(rt)));
  if (applied.length) log.info({ applied }, 'migrations applied');
} finally {
  await rt.close();
}

const workers = cfg.workerProcesses;
const web = cfg.webProcesses || Math.max(1, availableParallelism() - workers);
log.info({ port: cfg.port, web, workers, cores: availableParallelism() }, 'starting api and worker processes');
supervise(
  [
    { role: 'web', script: fileURLToPath(new URL('./web.js', import.meta.url)), count: web, cluster: true },
    { role: 'worker', script: fileURLToPath(new URL('../../workers/main.js', import.meta.url)), count: workers, cluster: false },
  ],
  { log, shutdownTimeoutMs: cfg.shutdownTimeoutMs },
);
