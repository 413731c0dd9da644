/**
 * The Koa application: the edge only. Order: client address (D24) → request target → unread body
 * drained → request id → errors → timeout → unknown-route body → version
 * redirects → health and the API documents → operator pages → the customer
 * page → JSON body → the /api/v3 routes. No ORM request context: each
 * middleware and route forks the EntityManager it uses (docs/decisions.md
 * AUC-19).
 */
import Koa from 'koa';
import { randomUUID } from 'node:crypto';
import type { Runtime } from '../domain/ports.js';
import type { AppState } from './context.js';
import { authFailLimit } from '../auth/failLimit.js';
import { clientAddress } from '../auth/clientAddress.js';
import { errorMiddleware } from './middleware/errors.js';
import { jsonBody } from './middleware/body.js';
import { drainUnreadBody } from './middleware/drain.js';
import { pageHeaders } from './middleware/pages.js';
import { requestTarget } from './middleware/target.js';
import { requestDuration } from './middleware/metrics.js';
import { notFound, versionRedirect } from './middleware/routing.js';
import { timeoutMiddleware } from './middleware/timeout.js';
import { docsPage } from '../api/system/system.js';
import { routerOf } from './mount.js';
import { mountAdmin } from './routes/admin.js';
import { mountTrackingPage } from './routes/trackingPage.js';
import { adminRoutes, apiRoutes, systemRoutes } from './routes/index.js';

/** A caller's x-request-id is kept when it is a plain token; anything else is replaced (it goes into logs). */
const REQUEST_ID = /^[\w.:-]{1,128}$/;

const DOCS_PATH = docsPage.path;

export function createApp(rt: Runtime): Koa<AppState> {
  const app = new Koa<AppState>({ proxy: rt.config.trustProxy });
  app.silent = true;
  app.context.authFailures = authFailLimit(rt);

  // D24: ctx.ip is the client's address per TRUST_PROXY_HOPS, a valid IP, never the left-most X-Forwarded-For.
  const trust = { trustProxy: rt.config.trustProxy, trustProxyHops: rt.config.trustProxyHops };
  app.use((ctx, next) => {
    ctx.request.ip = clientAddress(ctx.req.headers['x-forwarded-for'], ctx.req.socket.remoteAddress, trust);
    return next();
  });
  app.use(requestTarget);
  app.use(requestDuration);
  app.use(drainUnreadBody(rt.config.bodyLimit));
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
  // The API docs page is an HTML page: helmet's headers, as the operator pages (D15).
  const headers = pageHeaders as unknown as Koa.Middleware<AppState>;
  app.use((ctx, next) => (ctx.path === DOCS_PATH || ctx.path.startsWith(`${DOCS_PATH}/`) ? headers(ctx, next) : next()));
  // Every route is a declaration of src/api (operations.ts lists them), mounted in one shape (mount.ts).
  // No allowedMethods(): a known path with another method is an unknown route (spec 4.9).
  app.use(routerOf(rt, systemRoutes(rt)).routes());

  mountAdmin(app, rt, adminRoutes(rt));
  mountTrackingPage(app, rt);

  app.use(jsonBody(rt.config.bodyLimit));
  app.use(routerOf(rt, apiRoutes(rt)).routes());
  return app;
}
