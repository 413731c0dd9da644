/**
 * One operator login flow (D15) behind both POST /users/login (JSON) and the
 * /admin/login form: every attempt counts against the login limit of the
 * client address (throws its 429), then the account's failures are checked
 * (D24, its 429), then the password is checked through the process's hash gate
 * (LIM-4: at most LOGIN_HASH_CONCURRENCY argon2 runs at once, a short queue,
 * else 503), a failure counts against the account, and a success signs the JWT
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
import { loginLimiter, loginUnavailable } from './loginLimit.js';
import { GateFull, hashGate, type HashGate } from '../../auth/hashGate.js';

/** How long a login waits for a free hash at most (the queue is LOGIN_HASH_QUEUE long). */
const HASH_WAIT_MS = 5000;

/** One gate per runtime: the JSON route and the form share the process's cap. */
const gates = new WeakMap<object, HashGate>();
function gateOf(rt: Pick<Runtime, 'config'>): HashGate {
  let gate = gates.get(rt);
  if (!gate) gates.set(rt, (gate = hashGate(rt.config.loginHashConcurrency, rt.config.loginHashQueue, HASH_WAIT_MS)));
  return gate;
}

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
  const gate = gateOf(rt);
  // The document's LoginInput (POST /users/login and the /admin/login form), checked after the attempt is counted.
  const valid = compile(LoginInput.schema);
  return async (ctx, body) => {
    await limit.attempt(ctx);
    const unstorable = findUnstorableText(body ?? {});
    if (unstorable !== null) return { kind: 'unstorable', message: unstorableTextMessage(unstorable) };
    if (!valid(body)) return { kind: 'missing' };
    const { username, password } = body as { username: string; password: string };
    await limit.account(username);
    const operator = await gate.run(() => checkOperatorPassword(rt.orm.em.fork(), username, password)).catch((err: unknown) => {
      throw err instanceof GateFull ? loginUnavailable() : err;
    });
    if (!operator) {
      await limit.failed(username);
      return { kind: 'invalid' };
    }
    const token = await signOperatorToken(operator, rt.config.jwtSecret, rt.config.jwtExpiresIn);
    ctx.cookies.set(OPERATOR_COOKIE, token, { httpOnly: true, sameSite: 'strict', secure: ctx.secure, overwrite: true });
    return { kind: 'signed-in', operator, token };
  };
}
