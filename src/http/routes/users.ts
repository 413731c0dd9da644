import Router from '@koa/router';
import type { Runtime } from '../../main/runtime.js';
import { operatorLogin } from '../auth/operatorLogin.js';
import type { AppState } from '../context.js';
import { controllerError } from '../errors.js';

export const LOGIN_MESSAGES = {
  missing: 'EL USUARIO Y LA CONTRASEÑA SON REQUERIDOS',
  invalid: 'Las credenciales de acceso no son correctas.',
  ok: 'INICIO DE SESIÓN EXITOSO',
} as const;

/**
 * POST /users/login (D15): operators' login, issuing a JWT; every attempt
 * counts against the login limit (spec 8).
 */
export function userRoutes(rt: Runtime): Router<AppState> {
  const login = operatorLogin(rt);
  const router = new Router<AppState>();
  router.post('/users/login', async (ctx) => {
    const out = await login(ctx, ctx.request.body);
    if (out.kind === 'missing') throw controllerError(400, LOGIN_MESSAGES.missing);
    if (out.kind === 'unstorable') throw controllerError(400, out.message);
    if (out.kind === 'invalid') throw controllerError(401, LOGIN_MESSAGES.invalid);
    const { operator, token } = out;
    ctx.body = {
      status: true,
      msg: LOGIN_MESSAGES.ok,
      data: { token, tokenType: 'Bearer', expiresIn: rt.config.jwtExpiresIn, user: { username: operator.username, role: operator.role } },
    };
  });
  return router;
}
