/**
 * Authentication middleware and per-endpoint permissions (spec section 5):
 * HTTP Basic, the x-apikey validator (both checked in src/auth/credentials.ts,
 * shared with the socket upgrade), and an operator's Bearer JWT where the spec
 * allows it.
 */
import type { CredentialCache } from '../../auth/cache.js';
import type { Next } from 'koa';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AUTH_MESSAGES, authenticateApiKey, authenticateBasic } from '../../auth/credentials.js';
import type { AppContext } from '../context.js';
import { HttpError, OPERATOR_LOGIN_REQUIRED, controllerError } from '../../envelopes.js';
import { operatorOfToken } from '../../auth/jwt.js';

export { AUTH_MESSAGES, authenticateApiKey, authenticateBasic, canUse, parseBasic } from '../../auth/credentials.js';

/** The httpOnly cookie that carries an operator's JWT to the operator pages. */
export const OPERATOR_COOKIE = 'operator_token';

type EmProvider = () => EntityManager;

/** Koa middleware: HTTP Basic for `endpoint` (path without the version prefix; null: not gated by the endpoint list). */
export function basicAuth(em: EmProvider, endpoint: string | null, cache?: CredentialCache) {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    ctx.state.apiUser = await authenticateBasic(em, ctx.get('authorization') || undefined, endpoint, ctx.authFailures?.forClient(ctx.ip), cache);
    await next();
  };
}

/** Koa middleware: x-apikey for `endpoint` (null: not gated by the endpoint list). */
export function apiKeyAuth(em: EmProvider, endpoint: string | null, cache?: CredentialCache) {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    ctx.state.apiUser = await authenticateApiKey(em, ctx.get('x-apikey') || undefined, endpoint, ctx.authFailures?.forClient(ctx.ip), cache);
    await next();
  };
}

const bearerToken = (ctx: AppContext): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];

/**
 * Koa middleware: an operator's Bearer JWT, or else HTTP Basic (POST /finalize,
 * spec 5.3). A bad or expired token answers 401 in the controller envelope of
 * 4.4; the /finalize route turns its Basic 401s into that envelope too.
 */
export function basicOrJwtAuth(em: EmProvider, endpoint: string, jwtSecret: string, cache?: CredentialCache) {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    const header = ctx.get('authorization');
    const bearer = bearerToken(ctx);
    if (bearer) {
      const op = await operatorOfToken(em(), bearer, jwtSecret);
      if (!op) throw controllerError(401, AUTH_MESSAGES.basicInvalid);
      ctx.state.operator = op;
    } else {
      ctx.state.apiUser = await authenticateBasic(em, header || undefined, endpoint, ctx.authFailures?.forClient(ctx.ip), cache);
    }
    await next();
  };
}

export { OPERATOR_LOGIN_REQUIRED };

/**
 * Koa middleware for operator pages: Bearer JWT or the operator cookie set at
 * login. Without a valid one, a browser (Accept: text/html) is sent to
 * `loginPath`; any other client gets 401 JSON.
 */
export function operatorAuth(em: EmProvider, jwtSecret: string, loginPath: string) {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    const token = bearerToken(ctx) ?? ctx.cookies.get(OPERATOR_COOKIE);
    const op = token ? await operatorOfToken(em(), token, jwtSecret) : null;
    if (!op) {
      // a page asked for by a browser: to the form, which brings the operator back here once signed in (D23)
      if (ctx.accepts('json', 'html') === 'html') return ctx.redirect(ctx.method === 'GET' ? `${loginPath}?next=${encodeURIComponent(ctx.originalUrl)}` : loginPath);
      throw new HttpError(401, { status: false, msg: OPERATOR_LOGIN_REQUIRED });
    }
    ctx.state.operator = op;
    await next();
  };
}
