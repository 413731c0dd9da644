/** The `web` role: the HTTP API (and its sockets). */
// First: keeps SIGTERM/SIGINT from before the other modules load (see stopSignals.ts).
import { keptStopSignals } from './stopSignals.js';
import { startHttpServer } from './server.js';
import { warnUnsafeDefaults } from './banner.js';
import { logger } from '../logger.js';
import { configOrExit, createRuntime } from './runtime.js';
import { holdStopSignals, onShutdown } from './shutdown.js';
import { publishMetrics } from '../metrics/metrics.js';

const cfg = configOrExit();
const log = logger();
holdStopSignals(log, cfg.shutdownTimeoutMs, keptStopSignals);
warnUnsafeDefaults(cfg, { demo: false });
const rt = await createRuntime(cfg, { log, role: 'web' });
const http = await startHttpServer(rt);
rt.log.info({ port: http.port }, 'api listening');
const stopMetrics = publishMetrics(rt.redis, cfg.queuePrefix, 'api');
onShutdown(rt.log, [
  ['http', () => http.close()],
  ['metrics', stopMetrics],
  ['runtime', () => rt.close()],
], rt.config.shutdownTimeoutMs);
