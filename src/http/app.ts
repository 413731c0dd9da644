/**
 * The Koa application: the edge only. Order: errors → timeout → version
 * redirects → health → operator pages → body parsing → ORM request context →
 * the /api/v3 routes → unknown-route body.
 */
import Router from '@koa/router';
import { RequestContext } from '@mikro-orm/core';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { randomUUID } from 'node:crypto';
import type { Runtime } from '../main/runtime.js';
import type { AppState } from './context.js';
import { errorMiddleware } from './middleware/errors.js';
import { API_PREFIX, notFound, versionRedirect } from './middleware/routing.js';
import { timeoutMiddleware } from './middleware/timeout.js';
import { mountBullBoard } from './routes/admin.js';
import { healthRoutes } from './routes/health.js';
import { apiRouters } from './routes/index.js';

export function createApp(rt: Runtime): Koa<AppState> {
  const app = new Koa<AppState>({ proxy: process.env.TRUST_PROXY === '1' });
  app.silent = true;

  app.use(async (ctx, next) => {
    ctx.state.requestId = ctx.get('x-request-id') || randomUUID();
    ctx.set('x-request-id', ctx.state.requestId);
    await next();
  });
  app.use(errorMiddleware(rt.log));
  app.use(timeoutMiddleware(rt.config.requestTimeoutMs, rt.log));
  app.use(notFound);
  app.use(versionRedirect);

  const health = healthRoutes(rt);
  app.use(health.routes());

  mountBullBoard(app, rt);

  app.use(
    bodyParser({
      enableTypes: ['json'],
      jsonLimit: rt.config.bodyLimit,
      strict: true,
      onerror: (err) => {
        throw err;
      },
    }),
  );
  app.use((ctx, next) => RequestContext.create(rt.orm.em, next));

  const api = new Router<AppState>({ prefix: API_PREFIX });
  for (const r of apiRouters(rt)) api.use(r.routes(), r.allowedMethods());
  app.use(api.routes());
  app.use(api.allowedMethods());
  return app;
}
