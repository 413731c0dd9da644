import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Runtime } from '../main/runtime.js';
import { createApp } from './app.js';

export interface HttpServer {
  server: Server;
  port: number;
  /** stop accepting, let in-flight requests finish, close idle keep-alive sockets */
  close(): Promise<void>;
}

export async function startHttpServer(rt: Runtime, port = rt.config.port): Promise<HttpServer> {
  const app = createApp(rt);
  const server = createServer(app.callback());
  // Our own timeout middleware answers 408 first; these are the socket-level backstops.
  server.requestTimeout = rt.config.requestTimeoutMs + 5000;
  server.headersTimeout = Math.min(rt.config.requestTimeoutMs + 5000, 65000);
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
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
