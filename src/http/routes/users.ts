import Router from '@koa/router';
import argon2 from 'argon2';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Runtime } from '../../main/runtime.js';
import { OperatorUser } from '../../db/entities/index.js';
import { signOperatorToken } from '../auth/jwt.js';
import type { AppContext, AppState } from '../context.js';
import { HttpError, controllerError } from '../errors.js';
import { validateBody } from '../validation.js';

const loginSchema = {
  type: 'object',
  required: ['username', 'password'],
  properties: {
    username: { type: 'string', minLength: 1, maxLength: 255 },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
  },
} as const;

/** A hash compared against when the username is unknown, so both cases take as long. */
const DUMMY_HASH = argon2.hash('not-a-real-password-0000');

export const LOGIN_MESSAGES = {
  missing: 'EL USUARIO Y LA CONTRASEÑA SON REQUERIDOS',
  invalid: 'Las credenciales de acceso no son correctas.',
  ok: 'INICIO DE SESIÓN EXITOSO',
} as const;

/**
 * POST /users/login (D15): operators' login, issuing a JWT; rate limited per IP
 * in Redis (spec 8), so the limit holds across API processes.
 */
export function userRoutes(rt: Runtime): Router<AppState> {
  const { config: cfg } = rt;
  const limiter = new RateLimiterRedis({
    storeClient: rt.redis,
    keyPrefix: `${cfg.queuePrefix}-login`,
    points: cfg.loginRateLimit,
    duration: cfg.loginRateWindowS,
  });

  const setRateHeaders = (ctx: AppContext, res: RateLimiterRes) => {
    ctx.set('X-RateLimit-Limit', String(cfg.loginRateLimit));
    ctx.set('X-RateLimit-Remaining', String(Math.max(0, res.remainingPoints)));
    ctx.set('X-RateLimit-Reset', String(Math.ceil((Date.now() + res.msBeforeNext) / 1000)));
  };

  const router = new Router<AppState>();
  router.post('/users/login', async (ctx) => {
    try {
      setRateHeaders(ctx, await limiter.consume(ctx.ip));
    } catch (rej) {
      if (!(rej instanceof RateLimiterRes)) throw rej;
      setRateHeaders(ctx, rej);
      throw new HttpError(
        429,
        {
          error: 'Demasiadas solicitudes',
          message: `Límite de ${cfg.loginRateLimit} solicitudes excedido`,
          retryAfter: cfg.loginRateWindowS,
          timestamp: new Date().toISOString(),
        },
        { 'Retry-After': String(Math.ceil(rej.msBeforeNext / 1000)) },
      );
    }
    const body = validateBody(loginSchema, ctx.request.body, () => LOGIN_MESSAGES.missing);
    const op = await rt.orm.em.findOne(OperatorUser, { username: body.username });
    const ok = await argon2.verify(op?.passwordHash ?? (await DUMMY_HASH), body.password);
    if (!op || !ok) throw controllerError(401, LOGIN_MESSAGES.invalid);
    const token = await signOperatorToken(op, cfg.jwtSecret, cfg.jwtExpiresIn);
    ctx.cookies.set('operator_token', token, { httpOnly: true, sameSite: 'strict', overwrite: true });
    ctx.body = {
      status: true,
      msg: LOGIN_MESSAGES.ok,
      data: { token, tokenType: 'Bearer', expiresIn: cfg.jwtExpiresIn, user: { username: op.username, role: op.role } },
    };
  });
  return router;
}
