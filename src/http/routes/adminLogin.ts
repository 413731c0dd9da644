import Router from '@koa/router';
import type { Runtime } from '../../main/runtime.js';
import { authenticateOperator } from '../../domain/operators/login.js';
import { OPERATOR_COOKIE } from '../auth/index.js';
import { signOperatorToken } from '../auth/jwt.js';
import { loginLimiter } from '../auth/loginLimit.js';
import type { AppContext, AppState } from '../context.js';
import { HttpError } from '../errors.js';
import { formBody } from '../middleware/body.js';
import { compile } from '../validation.js';
import { loginPage } from '../views/loginPage.js';

export const ADMIN_LOGIN_PATH = '/admin/login';

export const ADMIN_LOGIN_MESSAGES = {
  missing: 'Escriba el usuario y la contraseña.',
  invalid: 'Usuario o contraseña incorrectos.',
  tooMany: 'Demasiados intentos de inicio de sesión. Intente de nuevo más tarde.',
} as const;

const formSchema = {
  type: 'object',
  required: ['username', 'password'],
  properties: {
    username: { type: 'string', minLength: 1, maxLength: 255 },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
  },
} as const;

function render(ctx: AppContext, status: number, error?: string): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = loginPage(ADMIN_LOGIN_PATH, error);
}

/**
 * The operators' login page for browsers: GET shows the form; POST
 * (form-encoded) counts against the login limit, sets the httpOnly operator
 * cookie and sends the browser to `landing`.
 */
export function adminLoginRoutes(rt: Runtime, landing: string): Router<AppState> {
  const limit = loginLimiter(rt);
  const validForm = compile(formSchema);
  const router = new Router<AppState>();
  router.get(ADMIN_LOGIN_PATH, (ctx) => render(ctx, 200));
  router.post(ADMIN_LOGIN_PATH, formBody('8kb'), async (ctx) => {
    try {
      await limit(ctx);
    } catch (err) {
      if (!(err instanceof HttpError) || err.status !== 429) throw err;
      ctx.set(err.headers);
      return render(ctx, 429, ADMIN_LOGIN_MESSAGES.tooMany);
    }
    const form = ctx.request.body;
    if (!validForm(form)) return render(ctx, 400, ADMIN_LOGIN_MESSAGES.missing);
    const { username, password } = form as { username: string; password: string };
    const op = await authenticateOperator(rt.orm.em, username, password);
    if (!op) return render(ctx, 401, ADMIN_LOGIN_MESSAGES.invalid);
    const token = await signOperatorToken(op, rt.config.jwtSecret, rt.config.jwtExpiresIn);
    ctx.cookies.set(OPERATOR_COOKIE, token, { httpOnly: true, sameSite: 'strict', secure: ctx.secure, overwrite: true });
    ctx.status = 303;
    ctx.redirect(landing);
  });
  return router;
}
