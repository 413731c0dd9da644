/**
 * The operators' login page for browsers (D15): GET shows the form; POST
 * (form-encoded) counts against the login limit, sets the httpOnly operator
 * cookie and sends the browser to the console, or to the page it came from
 * (`next`, a path of this site only, D23). POST /admin/logout forgets the cookie.
 */
import type { Runtime } from '../../domain/ports.js';
import { operatorLogin, type LoginOutcome } from '../auth/operatorLogin.js';
import type { AppContext } from '../context.js';
import { HttpError } from '../../envelopes.js';
import { sameOrigin } from '../middleware/pages.js';
import { adminLogin, adminLoginPage, adminLogout } from '../../api/operators/pages.js';
import { OPERATOR_COOKIE } from '../auth/index.js';
import { Answer } from '../../api/operation.js';
import { ADMIN_LOGIN_PATH, route, type Route } from '../mount.js';
import { loginPage } from '../views/loginPage.js';

export { ADMIN_LOGIN_PATH };

export const ADMIN_LOGIN_MESSAGES = {
  missing: 'Escriba el usuario y la contraseña.',
  unstorable: 'El usuario o la contraseña contienen caracteres no permitidos.',
  invalid: 'Usuario o contraseña incorrectos.',
  tooMany: 'Demasiados intentos de inicio de sesión. Intente de nuevo más tarde.',
  unavailable: 'El servicio no está disponible en este momento. Intente de nuevo en unos segundos.',
  crossSite: 'El formulario debe enviarse desde esta misma página.',
  signedOut: 'Cerró la sesión.',
} as const;

/**
 * Where a signed-in operator may be sent (D23): a path of this site under /admin/, as given (query kept); anything
 * else (another origin, `//host`, a backslash, a control character, a path outside /admin/) is null.
 */
export function safeNext(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 2048 || !value.startsWith('/admin/')) return null;
  // backslashes and control characters are read as slashes or dropped by some browsers: never a redirect target
  if (/[\\\u0000-\u001f\u007f]/.test(value)) return null;
  const base = 'http://consola.invalid';
  const url = URL.parse(value, base);
  if (!url || url.origin !== base || !url.pathname.startsWith('/admin/') || url.pathname.startsWith(ADMIN_LOGIN_PATH)) return null;
  return `${url.pathname}${url.search}`;
}

/** The `next` of a request: the form's field, else the query's. */
function nextOf(ctx: AppContext): string | null {
  const body = ctx.request.body as { next?: unknown } | undefined;
  return safeNext(body?.next ?? ctx.query.next);
}

/** The form, with an error when there is one. */
function page(ctx: AppContext, status: number, error?: string, headers: Record<string, string> = {}): Answer {
  ctx.type = 'html';
  const notice = !error && ctx.query.salio === '1' ? ADMIN_LOGIN_MESSAGES.signedOut : undefined;
  return new Answer(status, loginPage(ADMIN_LOGIN_PATH, error, nextOf(ctx), notice), { 'Cache-Control': 'no-store', ...headers });
}

/**
 * GET shows the form; POST (form-encoded) counts against the login limit, sets
 * the httpOnly operator cookie and sends the browser to `landing`. A POST from
 * another site (login CSRF) is refused 403 before anything is counted or checked.
 */
export function adminLoginRoutes(rt: Runtime, landing: string): Route[] {
  const login = operatorLogin(rt);
  return [
    route(adminLoginPage, (ctx) => page(ctx, 200)),
    route(
      adminLogin,
      async (ctx) => {
        if (!sameOrigin(ctx)) return page(ctx, 403, ADMIN_LOGIN_MESSAGES.crossSite);
        let out: LoginOutcome;
        try {
          out = await login(ctx, ctx.request.body);
        } catch (err) {
          if (!(err instanceof HttpError) || (err.status !== 429 && err.status !== 503)) throw err;
          return page(ctx, err.status, err.status === 429 ? ADMIN_LOGIN_MESSAGES.tooMany : ADMIN_LOGIN_MESSAGES.unavailable, err.headers);
        }
        if (out.kind === 'missing') return page(ctx, 400, ADMIN_LOGIN_MESSAGES.missing);
        if (out.kind === 'unstorable') return page(ctx, 400, ADMIN_LOGIN_MESSAGES.unstorable);
        if (out.kind === 'invalid') return page(ctx, 401, ADMIN_LOGIN_MESSAGES.invalid);
        ctx.status = 303;
        ctx.redirect(nextOf(ctx) ?? landing);
        return undefined;
      },
      { validate: false },
    ),
    route(adminLogout, (ctx) => {
      if (!sameOrigin(ctx)) return page(ctx, 403, ADMIN_LOGIN_MESSAGES.crossSite);
      ctx.cookies.set(OPERATOR_COOKIE, null, { httpOnly: true, sameSite: 'strict', overwrite: true });
      ctx.status = 303;
      ctx.redirect(`${ADMIN_LOGIN_PATH}?salio=1`);
      return undefined;
    }),
  ];
}
