/**
 * A tiny Koa app with the real error middleware, for testing
 * one middleware over HTTP before a real route uses it.
 */
import Router from '@koa/router';
import Koa from 'koa';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import got, { type Got } from 'got';
import type { AppState } from '../../src/http/context.js';
import { errorMiddleware } from '../../src/http/middleware/errors.js';
import type { Runtime } from '../../src/domain/ports.js';

export interface MiniApp {
  client: Got;
  close(): Promise<void>;
}

export async function serveMini(rt: Runtime, routes: (router: Router<AppState>) => void): Promise<MiniApp> {
  const app = new Koa<AppState>();
  app.silent = true;
  app.use(errorMiddleware(rt.log));
  const router = new Router<AppState>();
  routes(router);
  app.use(router.routes());
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    client: got.extend({ prefixUrl: `http://127.0.0.1:${port}`, throwHttpErrors: false, retry: { limit: 0 }, responseType: 'json' }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
