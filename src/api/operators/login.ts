/**
 * POST /users/login (D15): operators' login, issuing a JWT. Every attempt
 * counts against the per-IP limit before the body is read, and the JWT is
 * also set as a cookie: its handler is Koa-shaped (src/http/routes/users.ts).
 */
import { IDENTITY_LIMITS } from '../../limits.js';
import { RateLimited, str } from '../document/components.js';
import { controller, msg } from '../document/responses.js';
import { API, named, operation } from '../operation.js';

export const LOGIN_MESSAGES = {
  missing: 'EL USUARIO Y LA CONTRASEÑA SON REQUERIDOS',
  invalid: 'Las credenciales de acceso no son correctas.',
  ok: 'INICIO DE SESIÓN EXITOSO',
  /** the spec's 429 body (7.3): its `error` and `message` */
  rateLimited: 'Demasiadas solicitudes',
  limitExceeded: (points: number) => `Límite de ${points} solicitudes excedido`,
  /** D24: the account's failed attempts (the same 429 body) */
  accountLimited: (points: number) => `Límite de ${points} intentos fallidos excedido para este usuario`,
  /** D21: Redis away (logins fail closed) or every password hash busy (LIM-4) */
  unavailable: 'SERVICIO TEMPORALMENTE NO DISPONIBLE',
} as const;

/** POST /users/login and the /admin/login form (D15). */
export const LoginInput = named('LoginInput', {
  type: 'object',
  required: ['username', 'password'],
  properties: {
    username: { type: 'string', minLength: 1, maxLength: IDENTITY_LIMITS.username },
    password: { type: 'string', minLength: 1, maxLength: IDENTITY_LIMITS.password },
  },
} as const);

export const login = operation({
  method: 'post',
  path: `${API}/users/login`,
  operationId: 'login',
  summary: 'Operators’ login: a JWT (D15); limited per IP (spec 8) and per account (D24)',
  tag: 'Operadores',
  auth: 'none',
  envelope: 'controller',
  input: { schema: LoginInput, from: 'json' },
  responses: {
    200: {
      description: 'Signed in; the JWT is also set as the httpOnly operator cookie',
      schema: {
        type: 'object',
        required: ['status', 'msg', 'data'],
        properties: {
          status: { const: true },
          msg,
          data: {
            type: 'object',
            required: ['token', 'tokenType', 'expiresIn', 'user'],
            properties: {
              token: str(4096),
              tokenType: { const: 'Bearer' },
              expiresIn: str(32),
              user: { type: 'object', required: ['username', 'role'], properties: { username: str(255), role: str(32) } },
            },
          },
        },
      },
    },
    400: controller('Username or password missing', { missing: LOGIN_MESSAGES.missing }),
    401: controller('Wrong credentials', { invalid: LOGIN_MESSAGES.invalid }),
    429: {
      description:
        'Too many attempts from this IP (spec 7.3, 8), with Retry-After and the X-RateLimit-* headers; or too many failed attempts for this username from anywhere (D24, LOGIN_ACCOUNT_LIMIT), with Retry-After',
      schema: RateLimited,
      examples: {
        limited: { error: LOGIN_MESSAGES.rateLimited, message: LOGIN_MESSAGES.limitExceeded(5), retryAfter: 900, timestamp: '2026-11-24T05:00:00.000Z' },
        account: { error: LOGIN_MESSAGES.rateLimited, message: LOGIN_MESSAGES.accountLimited(10), retryAfter: 900, timestamp: '2026-11-24T05:00:00.000Z' },
      },
    },
    503: controller('Redis away (logins fail closed, D21) or every password check busy; with Retry-After', { unavailable: LOGIN_MESSAGES.unavailable }),
  },
});
