import type { Next } from 'koa';
import { routeNotFoundBody } from '../../api/errors.js';
import { API as API_PREFIX } from '../../api/operation.js';
import type { AppContext } from '../context.js';

/** /api/v1/* and /api/v2/* move to /api/v3/* keeping method and body (308, spec 9.2). */
export async function versionRedirect(ctx: AppContext, next: Next): Promise<void> {
  const m = /^\/api\/v[12](\/.*)?$/.exec(ctx.path);
  if (!m) return next();
  ctx.status = 308;
  const qs = ctx.querystring ? `?${ctx.querystring}` : '';
  ctx.set('Location', `${API_PREFIX}${m[1] ?? ''}${qs}`);
  ctx.body = { status: true, msg: `Versión obsoleta: use ${API_PREFIX}${m[1] ?? ''}` };
}

/** Unknown route middleware (spec 4.9, 7.3). */
export async function notFound(ctx: AppContext, next: Next): Promise<void> {
  await next();
  if (ctx.status !== 404 || ctx.body !== undefined) return;
  ctx.status = 404;
  ctx.body = routeNotFoundBody(ctx.method, ctx.path);
}
