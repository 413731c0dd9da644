/**
 * Mounts route declarations (operations.ts) on a @koa/router, one shape for
 * every route (issue 10 item 3): the route's error envelope (`envelope`,
 * read by the error middleware) → its failure message → authentication (from
 * `auth`) → validation compiled from the document's schema (with the route's
 * messages, in the route's envelope) → one handler (a domain call and a
 * presenter) whose return value is the body, or an Answer.
 */
import Router from '@koa/router';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { Middleware } from 'koa';
import type { Runtime } from '../../domain/ports.js';
import { apiKeyAuth, basicAuth, basicOrJwtAuth, operatorAuth } from '../auth/index.js';
import type { AppContext, AppState } from '../context.js';
import { HttpError, RequestError, controllerError } from '../errors.js';
import { formBody } from '../middleware/body.js';
import { failureMessage } from '../middleware/failure.js';
import { integrityCheck } from '../middleware/integrity.js';
import { chatAuth } from '../auth/chat.js';
import { assertStorable, compile } from '../validation.js';
import { openApiDocument } from './document.js';
import { API, adminLoginPage } from './operations.js';
import type { Auth, OperationDecl } from './types.js';

/** Where an operator without a session is sent (the /admin/login form). */
export const ADMIN_LOGIN_PATH = adminLoginPage.path;

/** The largest form body (the login form; the customer page's chat message: 2,000 characters URL-encoded). */
const FORM_LIMIT = '32kb';

export interface InvalidInput {
  /** the spec's message for the first failure */
  message: (e: ErrorObject) => string;
  /** extra fields of the 400 body (GET /offer-responses: `data: []`) */
  extra?: Record<string, unknown>;
}

export interface Route {
  op: OperationDecl;
  invalid?: InvalidInput;
  /** false: the handler validates itself (the login counts every attempt first), with `validatorOf(op)` */
  validate: boolean;
  handle: (ctx: AppContext, input: unknown) => unknown;
}

/** The validated input's type: what the declaration's schema describes. */
type InputOf<O> = O extends { input?: { schema: { schema: infer S } } } ? (S extends JSONSchema ? FromSchema<S> : never) : never;

/** Binds a handler to its declaration; the handler receives the validated input. */
export function route<O extends OperationDecl>(
  op: O,
  handle: (ctx: AppContext, input: InputOf<O>) => unknown,
  opts: { invalid?: InvalidInput; validate?: boolean } = {},
): Route {
  return { op, invalid: opts.invalid, validate: opts.validate ?? true, handle: handle as unknown as Route['handle'] };
}

/** The validator of an operation's input, compiled from the document's component. */
export function validatorOf(op: OperationDecl): ValidateFunction {
  if (!op.input) throw new Error(`${op.operationId} declares no input`);
  const schema = openApiDocument().components.schemas[op.input.schema.name];
  if (!schema) throw new Error(`no component ${op.input.schema.name}`);
  return compile(schema);
}

/** The input as the declaration says it travels. */
export function inputOf(ctx: AppContext, op: OperationDecl): unknown {
  const body: unknown = ctx.request.body;
  if (op.input?.from !== 'jsonOrQuery') return body ?? {};
  const props = Object.keys((op.input.schema.schema as { properties?: object }).properties ?? {});
  const fromBody = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  return Object.fromEntries(props.map((k) => [k, fromBody[k] ?? ctx.query[k]]).filter(([, v]) => v !== undefined));
}

/** A handler's answer with a status other than 200 (or headers); any other return value is the 200 body. */
export class Answer {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

function validation(r: Route): Middleware<AppState> {
  const validate = validatorOf(r.op);
  return async (ctx, next) => {
    // D19 before the schema: a NUL or a lone surrogate anywhere in the body or the query string (unknown
    // fields and keys too, not only what the input takes from them) is a 400 naming the field.
    assertStorable(ctx.request.body ?? {}, 400, r.invalid?.extra);
    assertStorable(ctx.query, 400, r.invalid?.extra);
    const input = inputOf(ctx, r.op);
    if (!validate(input)) {
      const first = validate.errors?.[0];
      throw new RequestError(400, first && r.invalid ? r.invalid.message(first) : 'SOLICITUD INVÁLIDA', r.invalid?.extra);
    }
    ctx.state.input = input;
    await next();
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

/** The permission name of a path: the path without the version prefix (spec 5.1). */
export const endpointOf = (path: string): string => (path.startsWith(`${API}/`) ? path.slice(API.length) : path);

function authentication(rt: Runtime, auth: Auth, path: string, gated = true): Middleware<AppState> | null {
  const em = () => rt.orm.em.fork();
  const endpoint = endpointOf(path);
  switch (auth) {
    case 'basic':
      return basicAuth(em, gated ? endpoint : null, rt.authCache);
    case 'apiKey':
      return apiKeyAuth(em, endpoint, rt.authCache);
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
  const router = new Router<AppState>();
  for (const r of routes) {
    const chain: Middleware<AppState>[] = [];
    const { envelope } = r.op;
    if (envelope !== 'html') {
      chain.push(async (ctx, next) => {
        ctx.state.envelope = envelope;
        await next();
      });
    }
    if (r.op.integrity) chain.push(integrityCheck(rt));
    if (r.op.input?.from === 'form') chain.push(formBody(FORM_LIMIT));
    if (r.op.failure) chain.push(failureMessage(rt.log, r.op.failure));
    const auth = authentication(rt, r.op.auth, r.op.path, r.op.endpointGated ?? true);
    if (auth) chain.push(auth);
    if (r.op.input && r.validate) chain.push(validation(r));
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
