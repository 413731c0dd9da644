/**
 * Mounts the operations of src/api on a @koa/router, one shape for every
 * route (issue 10 item 3): the operation's error envelope and wording (read
 * by the error middleware) → its failure message → authentication (from
 * `auth`) → validation (src/api/validation.ts: the D19 checks on the body
 * and the query string, then the compiled schema) → the handler. A
 * transport-neutral handler gets the caller the authentication found and
 * the validated input; the few Koa-shaped ones (cookies, HTML pages, the
 * login form) are bound here with `route`.
 */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Runtime } from '../domain/ports.js';
import { HttpError, MESSAGES, controllerError, envelopeBody, systemBody } from '../envelopes.js';
import { Answer, endpointOf, type Auth, type Caller, type OperationDecl } from '../api/operation.js';
import { adminLoginPage } from '../api/operators/pages.js';
import { validateInput } from '../api/validation.js';
import { errorAnswer } from '../api/errorTable.js';
import { REPLAYED_HEADER, beginIdempotent, idempotencyKeyOf, isIdempotent } from '../api/idempotency.js';
import { apiKeyAuth, basicAuth, basicOrJwtAuth, operatorAuth } from './auth/index.js';
import type { AppContext, AppState } from './context.js';
import { formBody } from './middleware/body.js';
import { failureMessage } from './middleware/failure.js';
import { integrityCheck } from './middleware/integrity.js';
import { chatAuth } from './auth/chat.js';
import { technicianAuth } from './auth/technician.js';

/** Where an operator without a session is sent (the /admin/login form). */
export const ADMIN_LOGIN_PATH = adminLoginPage.path;

/** The largest form body (the login form; the customer page's chat message: 2,000 characters URL-encoded). */
const FORM_LIMIT = '32kb';

export interface Route {
  op: OperationDecl;
  /** false: the handler validates itself (the login counts every attempt first) */
  validate: boolean;
  handle: (ctx: AppContext, input: unknown) => unknown;
}

/** Binds a Koa-shaped handler (one that needs request facts) to its declaration. */
export function route(op: OperationDecl, handle: (ctx: AppContext, input: never) => unknown, opts: { validate?: boolean } = {}): Route {
  return { op, validate: opts.validate ?? true, handle: handle as Route['handle'] };
}

/** The caller the route's authentication found, and the client's address. */
export function callerOf(ctx: AppContext): Caller {
  const { apiUser, operator, chat, technician } = ctx.state;
  return { apiUser, operator, chat, technician, ip: ctx.ip };
}

/** The transport-neutral operations of `ops` as routes: the caller from the authentication, the input validated (or the path parameters). */
export function operationRoutes(rt: Runtime, ops: readonly OperationDecl[]): Route[] {
  return ops.map((op) => {
    const { handle } = op;
    if (!handle) throw new Error(`${op.operationId} has no transport-neutral handler`);
    return route(op, (ctx: AppContext, input: unknown) => handle.call(op, rt, callerOf(ctx), inputWithPath(op, ctx, input) as never));
  });
}

/** The handler's input: the validated body with the declared path parameters laid over it, or the path parameters alone. */
function inputWithPath(op: OperationDecl, ctx: AppContext, input: unknown): unknown {
  if (!op.input) return { ...ctx.params };
  if (!op.pathParams) return input;
  const path = Object.fromEntries(Object.keys(op.pathParams).map((k) => [k, ctx.params[k]]));
  return { ...(input as Record<string, unknown>), ...path };
}

/** The input as the declaration says it travels. */
export function inputOf(ctx: AppContext, op: OperationDecl): unknown {
  const body: unknown = ctx.request.body;
  if (op.input?.from !== 'jsonOrQuery') return body ?? {};
  const props = Object.keys((op.input.schema.schema as { properties?: object }).properties ?? {});
  const fromBody = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  return Object.fromEntries(props.map((k) => [k, fromBody[k] ?? ctx.query[k]]).filter(([, v]) => v !== undefined));
}

function validation(op: OperationDecl): Middleware<AppState> {
  return async (ctx, next) => {
    ctx.state.input = validateInput(op, inputOf(ctx, op), [ctx.request.body ?? {}, ctx.query]);
    await next();
  };
}

/** The `Idempotency-Key` header read (a malformed one is the route's 400), before the body is validated. */
function idempotencyHeader(op: OperationDecl): Middleware<AppState> {
  const envelope = op.envelope === 'html' ? 'controller' : op.envelope;
  return async (ctx, next) => {
    ctx.state.idempotencyKey = idempotencyKeyOf(ctx.req.headers['idempotency-key'], envelope);
    await next();
  };
}

/**
 * `Idempotency-Key` (D24, src/api/idempotency.ts) around the handler of a
 * generator's or central's POST/PUT, after its authentication and validation:
 * the first request with a key acts and its answer (or its known error's) is
 * stored; a retry gets that answer again, marked `Idempotent-Replayed`.
 */
function idempotency(rt: Runtime, op: OperationDecl): Middleware<AppState> {
  const envelope = op.envelope === 'html' ? 'controller' : op.envelope;
  return async (ctx, next) => {
    const key = ctx.state.idempotencyKey;
    if (!key) return next();
    const begun = await beginIdempotent(rt, op, callerOf(ctx), key, { body: inputOf(ctx, op), params: ctx.params });
    if (begun.kind === 'replay') {
      const { status, body, headers } = begun.answer;
      ctx.status = status;
      ctx.set({ ...headers, [REPLAYED_HEADER]: 'true' });
      ctx.body = body;
      return;
    }
    const { claim } = begun;
    try {
      await claim.run(next);
    } catch (err) {
      const known = errorAnswer(err, envelope, op.wording);
      const failed = { status: 500, body: op.failure ? envelopeBody(envelope, op.failure) : systemBody(MESSAGES.internal), headers: {} };
      await claim.settle(known ? { status: known.status, body: known.body, headers: known.headers } : failed);
      throw err;
    }
    await claim.settle({ status: ctx.status, body: ctx.body, headers: {} });
  };
}

/** Runs an authentication middleware, answering its 401s in the controller envelope with the same message (spec 4.4). */
function unauthorizedAsController(auth: Middleware<AppState>): Middleware<AppState> {
  return async (ctx, next) => {
    let passed = false;
    try {
      await auth(ctx, async () => {
        passed = true;
      });
    } catch (err) {
      if (err instanceof HttpError && err.status === 401) throw controllerError(401, err.message);
      throw err;
    }
    if (passed) await next();
  };
}

function authentication(rt: Runtime, auth: Auth, path: string, gated = true): Middleware<AppState> | null {
  const em = () => rt.orm.em.fork();
  const endpoint = endpointOf(path);
  switch (auth) {
    case 'basic':
      return basicAuth(em, gated ? endpoint : null, rt.authCache);
    case 'apiKey':
      return gated ? apiKeyAuth(em, endpoint, rt.authCache) : apiKeyAuth(em, null, rt.authCache);
    case 'basicOrApiKey': {
      const byKey = apiKeyAuth(em, gated ? endpoint : null, rt.authCache);
      const byBasic = basicAuth(em, gated ? endpoint : null, rt.authCache);
      return (ctx, next) => (ctx.get('x-apikey') ? byKey(ctx, next) : byBasic(ctx, next));
    }
    case 'apiKeyOrTechnician':
      return technicianAuth(em, endpoint, false, rt.authCache);
    case 'technician':
      return technicianAuth(em, gated ? endpoint : null, true, rt.authCache);
    case 'basicOrJwt':
      return unauthorizedAsController(basicOrJwtAuth(em, endpoint, rt.config.jwtSecret, rt.authCache));
    case 'operator':
      return operatorAuth(em, rt.config.jwtSecret, ADMIN_LOGIN_PATH);
    case 'chat':
      return chatAuth(rt);
    case 'none':
      return null;
  }
}

/** `/a/{b}` → `/a/:b` */
export const koaPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

/** A router with every route mounted in its declared shape. */
export function routerOf(rt: Runtime, routes: readonly Route[]): Router<AppState> {
  // Paths match as the spec writes them: a case variant (`/SEGUIMIENTO`) is an unknown route (spec 4.9), not the
  // same page served past the prefix checks that give pages their security headers.
  const router = new Router<AppState>({ sensitive: true });
  for (const r of routes) {
    const chain: Middleware<AppState>[] = [];
    const { envelope, wording } = r.op;
    if (envelope !== 'html') {
      chain.push(async (ctx, next) => {
        ctx.state.envelope = envelope;
        ctx.state.wording = wording;
        await next();
      });
    }
    if (r.op.integrity) chain.push(integrityCheck(rt));
    if (r.op.input?.from === 'form') chain.push(formBody(FORM_LIMIT));
    if (r.op.failure) chain.push(failureMessage(rt.log, r.op.failure));
    const auth = authentication(rt, r.op.auth, r.op.path, r.op.endpointGated ?? true);
    if (auth) chain.push(auth);
    if (isIdempotent(r.op)) chain.push(idempotencyHeader(r.op));
    if (r.op.input && r.validate) chain.push(validation(r.op));
    if (isIdempotent(r.op)) chain.push(idempotency(rt, r.op));
    chain.push(async (ctx) => {
      const out = await r.handle(ctx, r.op.input && r.validate ? ctx.state.input : undefined);
      if (out instanceof Answer) {
        ctx.status = out.status;
        ctx.set(out.headers);
        ctx.body = out.body;
      } else if (out !== undefined) {
        ctx.body = out;
      }
    });
    router.register(koaPath(r.op.path), [r.op.method.toUpperCase()], chain, { name: r.op.operationId });
  }
  return router;
}
