import { STATUS_CODES, createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { Runtime } from '../domain/ports.js';
import { attachRealtime, type RealtimeOptions, type RealtimeServer } from '../realtime/server.js';
import { createApp } from './app.js';
import { MESSAGES, newErrorId, systemBody } from './errors.js';

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
  const app = createApp(rt);
  const server = createServer(app.callback());
  // Our own timeout middleware answers 408 first; these are the socket-level backstops.
  server.requestTimeout = rt.config.requestTimeoutMs + 5000;
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

export const CLIENT_ERROR_MESSAGES = {
  malformed: 'La solicitud HTTP no es válida.',
  headersTooLarge: 'Las cabeceras de la solicitud son demasiado grandes.',
} as const;

/**
 * A request Node's parser refuses (bad request line, bad header, headers too large, too slow) is
 * answered in the system envelope (spec 7.2) and the connection closed, as Node would do without a
 * listener; anything unexpected on that path is logged with an errorId and never ends the process.
 */
export function clientErrorHandler(log: Logger) {
  return (err: NodeJS.ErrnoException, socket: Duplex): void => {
    try {
      // As Node itself: nothing is written over a response already on its way on this connection.
      const inProgress = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
      if (err.code === 'ECONNRESET' || !socket.writable || inProgress?.headersSent) return void socket.destroy();
      const status =
        err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'HPE_TIMEOUT' ? 408 : 400;
      const message = status === 431 ? CLIENT_ERROR_MESSAGES.headersTooLarge : status === 408 ? MESSAGES.timeout : CLIENT_ERROR_MESSAGES.malformed;
      const text = JSON.stringify(systemBody(message));
      log.debug({ code: err.code, status }, 'client error');
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
          'Content-Type: application/json; charset=utf-8\r\n' +
          `Content-Length: ${Buffer.byteLength(text)}\r\n` +
          'Connection: close\r\n\r\n' +
          text,
      );
      socket.once('finish', () => socket.destroy());
    } catch (unexpected) {
      log.error({ err: unexpected, errorId: newErrorId() }, 'client error handler failed');
      socket.destroy();
    }
  };
}
