/**
 * `npm start`: one process for one machine. Migrates when needed, loads the
 * demo document into an empty database outside production, then runs the API
 * and all workers.
 */
import { startWorkers } from '../../workers/index.js';
import { ensureDatabase, migrate } from '../db/database.js';
import { startHttpServer } from '../http/server.js';
import { loadDemoIfEmpty } from '../provisioning/demo.js';
import { configOrExit, createRuntime } from './runtime.js';
import { onShutdown } from './shutdown.js';

const cfg = configOrExit();
await ensureDatabase(cfg.databaseUrl);
const rt = await createRuntime(cfg);
const applied = await migrate(rt.orm);
if (applied.length) rt.log.info({ applied }, 'migrations applied');
if (cfg.nodeEnv !== 'production') await loadDemoIfEmpty(rt);
const group = await startWorkers(rt);
const http = await startHttpServer(rt);
rt.log.info({ port: http.port }, 'api and workers running');
onShutdown(rt.log, [
  ['http', () => http.close()],
  ['workers', () => group.close()],
  ['runtime', () => rt.close()],
], rt.config.shutdownTimeoutMs);
