/**
 * The API process's server: the Koa app (src/http) and the real-time
 * endpoints (src/realtime, D10) on one Node HTTP server, wired here so that
 * neither layer imports the other.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../http/app.js';
import { clientErrorHandler } from '../http/clientErrors.js';
import { attachRealtime, type RealtimeOptions, type RealtimeServer } from '../realtime/server.js';
import type { Runtime } from './runtime.js';
import { proxyHopsWarning } from '../../config/index.js';

export interface HttpServer {
  server: Server;
  port: number;
  /** the real-time endpoints /v1, /v2, /v3 on this server (D10) */
  realtime: RealtimeServer;
  /** close the sockets, stop accepting, let in-flight requests finish, then close their connections too */
  close(): Promise<void>;
}

export interface HttpServerOptions {
  realtime?: RealtimeOptions;
}

export async function startHttpServer(rt: Runtime, port = rt.config.port, opts: HttpServerOptions = {}): Promise<HttpServer> {
  const hops = proxyHopsWarning(rt.config);
  if (hops) rt.log.warn(hops);
  const app = createApp(rt);
  const server = createServer(app.callback());
  // Our own timeout middleware answers 408 first; these are the socket-level backstops.
  server.requestTimeout = rt.config.requestTimeoutMs + 5000;
  // EDGE-15: an idle keep-alive connection outlives a client's or a proxy's own idle timeout (60 s is common), so the
  // client closes it first; a server that closes first (Node's 5 s) races a request sent on it at that moment
  // (ECONNRESET on the client, nodejs/node#20256). Node 20 holds an idle connection to this alone, not to the
  // headers' or the request's limits (those run from a request's first byte).
  server.keepAliveTimeout = rt.config.keepAliveTimeoutMs;
  server.headersTimeout = Math.min(rt.config.requestTimeoutMs + 5000, 65000);
  // While closing, a finished response must not leave its keep-alive connection open for
  // keepAliveTimeout: answers still to be sent say `Connection: close`.
  let closing = false;
  const inFlight = new Set<ServerResponse>();
  server.on('request', (_req, res: ServerResponse) => {
    if (closing) res.setHeader('Connection', 'close');
    inFlight.add(res);
    res.on('close', () => inFlight.delete(res));
  });

  server.on('clientError', clientErrorHandler(rt.log));

  const realtime = await attachRealtime(rt, server, opts.realtime);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    server,
    port: actual,
    realtime,
    async close() {
      // Upgraded sockets keep server.close() waiting: close them first.
      await realtime.close();
      await new Promise<void>((resolve) => {
        closing = true;
        for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
        server.close(() => resolve());
        server.closeIdleConnections();
      });
    },
  };
}

