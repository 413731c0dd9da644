/** The `web` role: the HTTP API (and its sockets). */
import { startHttpServer } from '../http/server.js';
import { warnUnsafeDefaults } from './banner.js';
import { configOrExit, createRuntime } from './runtime.js';
import { onShutdown } from './shutdown.js';

const cfg = configOrExit();
warnUnsafeDefaults(cfg, { demo: false });
const rt = await createRuntime(cfg);
const http = await startHttpServer(rt);
rt.log.info({ port: http.port }, 'api listening');
onShutdown(rt.log, [
  ['http', () => http.close()],
  ['runtime', () => rt.close()],
], rt.config.shutdownTimeoutMs);
