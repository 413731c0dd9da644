/**
 * One operator login flow (D15) behind both POST /users/login (JSON) and the
 * /admin/login form: every attempt counts against the login limit (throws
 * its 429), then the credentials are checked, and a success signs the JWT
 * and sets the httpOnly operator cookie. Each route shapes its own answer.
 */
import type { OperatorUser } from '../../db/entities/index.js';
import { checkOperatorPassword } from '../../domain/operators/login.js';
import type { Runtime } from '../../domain/ports.js';
import type { AppContext } from '../context.js';
import { LoginInput } from '../../api/operators/login.js';
import { compile } from '../../api/validation.js';
import { findUnstorableText, unstorableTextMessage } from '../../text.js';
import { OPERATOR_COOKIE } from './index.js';
import { signOperatorToken } from '../../auth/jwt.js';
import { loginLimiter } from './loginLimit.js';

export type LoginOutcome =
  | { kind: 'signed-in'; operator: OperatorUser; token: string }
  /** no username or password (or not strings, or too long) */
  | { kind: 'missing' }
  /** a NUL or a lone surrogate in a field (D19): refused before any lookup; `message` names the field */
  | { kind: 'unstorable'; message: string }
  | { kind: 'invalid' };

export type OperatorLogin = (ctx: AppContext, body: unknown) => Promise<LoginOutcome>;

export function operatorLogin(rt: Pick<Runtime, 'config' | 'redis' | 'orm'>): OperatorLogin {
  const limit = loginLimiter(rt);
  // The document's LoginInput (POST /users/login and the /admin/login form), checked after the attempt is counted.
  const valid = compile(LoginInput.schema);
  return async (ctx, body) => {
    await limit(ctx);
    const unstorable = findUnstorableText(body ?? {});
    if (unstorable !== null) return { kind: 'unstorable', message: unstorableTextMessage(unstorable) };
    if (!valid(body)) return { kind: 'missing' };
    const { username, password } = body as { username: string; password: string };
    const operator = await checkOperatorPassword(rt.orm.em.fork(), username, password);
    if (!operator) return { kind: 'invalid' };
    const token = await signOperatorToken(operator, rt.config.jwtSecret, rt.config.jwtExpiresIn);
    ctx.cookies.set(OPERATOR_COOKIE, token, { httpOnly: true, sameSite: 'strict', secure: ctx.secure, overwrite: true });
    return { kind: 'signed-in', operator, token };
  };
}
