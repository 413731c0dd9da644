/**
 * The Koa application: the edge only. Order: request id → errors → timeout →
 * unknown-route body → version redirects → health → the API documents → ORM
 * request context → operator pages → JSON body → the /api/v3 routes.
 */
import Router from '@koa/router';
import { RequestContext } from '@mikro-orm/core';
import Koa from 'koa';
import { randomUUID } from 'node:crypto';
import type { Runtime } from '../main/runtime.js';
import type { AppState } from './context.js';
import { errorMiddleware } from './middleware/errors.js';
import { jsonBody } from './middleware/body.js';
import { API_PREFIX, notFound, versionRedirect } from './middleware/routing.js';
import { timeoutMiddleware } from './middleware/timeout.js';
import { mountAdmin } from './routes/admin.js';
import { healthRoutes } from './routes/health.js';
import { docsRoutes } from './openapi/docs.js';
import { routerOf } from './openapi/router.js';
import { apiRouters } from './routes/index.js';

/** A caller's x-request-id is kept when it is a plain token; anything else is replaced (it goes into logs). */
const REQUEST_ID = /^[\w.:-]{1,128}$/;

export function createApp(rt: Runtime): Koa<AppState> {
  const app = new Koa<AppState>({ proxy: rt.config.trustProxy });
  app.silent = true;

  app.use(async (ctx, next) => {
    const given = ctx.get('x-request-id');
    ctx.state.requestId = REQUEST_ID.test(given) ? given : randomUUID();
    ctx.set('x-request-id', ctx.state.requestId);
    await next();
  });
  app.use(errorMiddleware(rt.log));
  app.use(timeoutMiddleware(rt.config.requestTimeoutMs, rt.log));
  app.use(notFound);
  app.use(versionRedirect);
  app.use(healthRoutes(rt).routes());
  app.use(routerOf(rt, docsRoutes(rt)).routes());
  app.use((ctx, next) => RequestContext.create(rt.orm.em, next));

  mountAdmin(app, rt);

  app.use(jsonBody(rt.config.bodyLimit));

  // No allowedMethods(): a known path with another method is an unknown route (spec 4.9).
  const api = new Router<AppState>({ prefix: API_PREFIX });
  for (const r of apiRouters(rt)) api.use(r.routes());
  app.use(api.routes());
  return app;
}
