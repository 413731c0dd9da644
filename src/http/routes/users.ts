/**
 * POST /users/login (D15): operators' login, issuing a JWT; every attempt
 * counts against the login limit (spec 8), so the body is validated after
 * counting (operatorLogin, with the document's LoginInput).
 */
import type { Runtime } from '../../domain/ports.js';
import { operatorLogin } from '../auth/operatorLogin.js';
import { login } from '../openapi/operations.js';
import { route, type Route } from '../openapi/router.js';
import { loginBody } from '../presenters/operators.js';

export { LOGIN_MESSAGES } from '../presenters/operators.js';

export function userRoutes(rt: Runtime): Route[] {
  const signIn = operatorLogin(rt);
  return [route(login, async (ctx) => loginBody(await signIn(ctx, ctx.request.body), rt.config.jwtExpiresIn), { validate: false })];
}
