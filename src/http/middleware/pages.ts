/**
 * What every HTML page of the service gets (D15; decisions "Hardening:
 * security"): security headers from helmet (koa-helmet) with a Content
 * Security Policy that Bull Board works under, and a same-origin rule for
 * every state-changing request (login CSRF included): a browser's
 * `Sec-Fetch-Site` must be `same-origin` (or `none`: typed by the user), and
 * without it an `Origin` must be the service's own. Clients that send
 * neither (curl, scripts) are not browsers and carry no ambient cookie risk.
 */
import type { Next } from 'koa';
import helmet from 'koa-helmet';
import type { AppContext } from '../context.js';

/** helmet's defaults, tightened: nothing loaded from outside (Bull Board's web fonts fall back to system fonts), no framing. */
export const pageHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: true,
    directives: {
      'default-src': ["'self'"],
      'script-src': ["'self'"],
      // Bull Board and the login page use inline style attributes and <style> blocks.
      'style-src': ["'self'", "'unsafe-inline'"],
      'font-src': ["'self'", 'data:'],
      'img-src': ["'self'", 'data:'],
      'connect-src': ["'self'"],
      'frame-ancestors': ["'none'"],
      'form-action': ["'self'"],
      // Served over plain HTTP behind no proxy too (development); HTTPS is the proxy's to enforce (HSTS is sent).
      'upgrade-insecure-requests': null,
    },
  },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'same-origin' },
});

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** True when a state-changing request may come from this client (see the header comment). */
export function sameOrigin(ctx: AppContext): boolean {
  if (SAFE_METHODS.has(ctx.method)) return true;
  const site = ctx.get('sec-fetch-site');
  if (site) return site === 'same-origin' || site === 'none';
  const origin = ctx.get('origin');
  if (!origin) return true;
  // The service's own origin (ctx.origin is not: in Koa 3 it echoes the Origin header).
  return origin === `${ctx.protocol}://${ctx.host}`;
}

/** Middleware: a cross-site state-changing request is answered by `refuse` (403). */
export function sameOriginOnly(refuse: (ctx: AppContext) => void) {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    if (!sameOrigin(ctx)) return refuse(ctx);
    await next();
  };
}
