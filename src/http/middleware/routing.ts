import type { Next } from 'koa';
import type { AppContext } from '../context.js';

export const API_PREFIX = '/api/v3';

/** /api/v1/* and /api/v2/* move to /api/v3/* keeping method and body (308, spec 9.2). */
export async function versionRedirect(ctx: AppContext, next: Next): Promise<void> {
  const m = /^\/api\/v[12](\/.*)?$/.exec(ctx.path);
  if (!m) return next();
  ctx.status = 308;
  const qs = ctx.querystring ? `?${ctx.querystring}` : '';
  ctx.set('Location', `${API_PREFIX}${m[1] ?? ''}${qs}`);
  ctx.body = { status: true, msg: `Versión obsoleta: use ${API_PREFIX}${m[1] ?? ''}` };
}

/** The unknown-route body (spec 4.9, 7.3); also answered to a socket upgrade on an unknown path. */
export function routeNotFoundBody(method: string, path: string): Record<string, unknown> {
  return {
    error: 'Ruta no encontrada',
    message: `La ruta ${method} ${path} no existe en esta API`,
    documentation: `${API_PREFIX}/docs`,
    suggestion: `Verifique la ruta y el método; las rutas vigentes empiezan por ${API_PREFIX}`,
    available_versions: {
      v1: '/api/v1 (obsoleta, redirige a /api/v3)',
      v2: '/api/v2 (en desuso, redirige a /api/v3)',
      v3: '/api/v3 (vigente)',
    },
    requested_path: path,
    method,
    timestamp: new Date().toISOString(),
  };
}

/** Unknown route middleware (spec 4.9, 7.3). */
export async function notFound(ctx: AppContext, next: Next): Promise<void> {
  await next();
  if (ctx.status !== 404 || ctx.body !== undefined) return;
  ctx.status = 404;
  ctx.body = routeNotFoundBody(ctx.method, ctx.path);
}
