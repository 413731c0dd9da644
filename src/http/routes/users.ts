import Router from '@koa/router';
import type { Runtime } from '../../main/runtime.js';
import { authenticateOperator } from '../../domain/operators/login.js';
import { signOperatorToken } from '../auth/jwt.js';
import { loginLimiter } from '../auth/loginLimit.js';
import { OPERATOR_COOKIE } from '../auth/index.js';
import type { AppState } from '../context.js';
import { controllerError } from '../errors.js';
import { validateBody } from '../validation.js';

const loginSchema = {
  type: 'object',
  required: ['username', 'password'],
  properties: {
    username: { type: 'string', minLength: 1, maxLength: 255 },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
  },
} as const;

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
  const { config: cfg } = rt;
  const limit = loginLimiter(rt);
  const router = new Router<AppState>();
  router.post('/users/login', async (ctx) => {
    await limit(ctx);
    const body = validateBody(loginSchema, ctx.request.body, () => LOGIN_MESSAGES.missing);
    const op = await authenticateOperator(rt.orm.em, body.username, body.password);
    if (!op) throw controllerError(401, LOGIN_MESSAGES.invalid);
    const token = await signOperatorToken(op, cfg.jwtSecret, cfg.jwtExpiresIn);
    ctx.cookies.set(OPERATOR_COOKIE, token, { httpOnly: true, sameSite: 'strict', secure: ctx.secure, overwrite: true });
    ctx.body = {
      status: true,
      msg: LOGIN_MESSAGES.ok,
      data: { token, tokenType: 'Bearer', expiresIn: cfg.jwtExpiresIn, user: { username: op.username, role: op.role } },
    };
  });
  return router;
}
