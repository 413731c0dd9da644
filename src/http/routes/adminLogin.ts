import Router from '@koa/router';
import type { Runtime } from '../../main/runtime.js';
import { operatorLogin, type LoginOutcome } from '../auth/operatorLogin.js';
import type { AppContext, AppState } from '../context.js';
import { HttpError } from '../errors.js';
import { formBody } from '../middleware/body.js';
import { sameOriginOnly } from '../middleware/pages.js';
import { loginPage } from '../views/loginPage.js';

export const ADMIN_LOGIN_PATH = '/admin/login';

export const ADMIN_LOGIN_MESSAGES = {
  missing: 'Escriba el usuario y la contraseña.',
  unstorable: 'El usuario o la contraseña contienen caracteres no permitidos.',
  invalid: 'Usuario o contraseña incorrectos.',
  tooMany: 'Demasiados intentos de inicio de sesión. Intente de nuevo más tarde.',
  crossSite: 'El formulario debe enviarse desde esta misma página.',
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
 * cookie and sends the browser to `landing`. A POST from another site (login
 * CSRF) is refused 403 before anything is counted or checked.
 */
export function adminLoginRoutes(rt: Runtime, landing: string): Router<AppState> {
  const login = operatorLogin(rt);
  const router = new Router<AppState>();
  router.get(ADMIN_LOGIN_PATH, (ctx) => render(ctx, 200));
  const sameSite = sameOriginOnly((ctx) => render(ctx, 403, ADMIN_LOGIN_MESSAGES.crossSite));
  router.post(ADMIN_LOGIN_PATH, sameSite, formBody('8kb'), async (ctx) => {
    let out: LoginOutcome;
    try {
      out = await login(ctx, ctx.request.body);
    } catch (err) {
      if (!(err instanceof HttpError) || err.status !== 429) throw err;
      ctx.set(err.headers);
      return render(ctx, 429, ADMIN_LOGIN_MESSAGES.tooMany);
    }
    if (out.kind === 'missing') return render(ctx, 400, ADMIN_LOGIN_MESSAGES.missing);
    if (out.kind === 'unstorable') return render(ctx, 400, ADMIN_LOGIN_MESSAGES.unstorable);
    if (out.kind === 'invalid') return render(ctx, 401, ADMIN_LOGIN_MESSAGES.invalid);
    ctx.status = 303;
    ctx.redirect(landing);
  });
  return router;
}
