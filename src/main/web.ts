/** The `web` role: the HTTP API (and its sockets). */
import { startHttpServer } from '../http/server.js';
import { configOrExit, createRuntime } from './runtime.js';
import { onShutdown } from './shutdown.js';

const rt = await createRuntime(configOrExit());
const http = await startHttpServer(rt);
rt.log.info({ port: http.port }, 'api listening');
onShutdown(rt.log, [
  ['http', () => http.close()],
  ['runtime', () => rt.close()],
], rt.config.shutdownTimeoutMs);
