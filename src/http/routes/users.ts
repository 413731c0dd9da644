/**
 * POST /users/login (D15): operators' login, issuing a JWT; every attempt
 * counts against the login limit (spec 8), so the body is validated after
 * counting (operatorLogin, with the document's LoginInput). Koa-shaped: the
 * client's IP and the cookie.
 */
import { RequestError } from '../../envelopes.js';
import { LOGIN_MESSAGES, login } from '../../api/operators/login.js';
import type { Runtime } from '../../domain/ports.js';
import { operatorLogin, type LoginOutcome } from '../auth/operatorLogin.js';
import { route, type Route } from '../mount.js';

export { LOGIN_MESSAGES };

export function loginBody(out: LoginOutcome, expiresIn: string) {
  if (out.kind === 'missing') throw new RequestError(400, LOGIN_MESSAGES.missing);
  if (out.kind === 'unstorable') throw new RequestError(400, out.message);
  if (out.kind === 'invalid') throw new RequestError(401, LOGIN_MESSAGES.invalid);
  const { operator, token } = out;
  return {
    status: true,
    msg: LOGIN_MESSAGES.ok,
    data: { token, tokenType: 'Bearer', expiresIn, user: { username: operator.username, role: operator.role } },
  };
}

export function userRoutes(rt: Runtime): Route[] {
  const signIn = operatorLogin(rt);
  return [route(login, async (ctx) => loginBody(await signIn(ctx, ctx.request.body), rt.config.jwtExpiresIn), { validate: false })];
}
