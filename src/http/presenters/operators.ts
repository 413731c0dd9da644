/** Operators' answers (D15): POST /users/login and the recipients of an offer. */
import type { listRecipients } from '../../domain/distribution/recipients.js';
import type { LoginOutcome } from '../auth/operatorLogin.js';
import { RequestError } from '../errors.js';

export const LOGIN_MESSAGES = {
  missing: 'EL USUARIO Y LA CONTRASEÑA SON REQUERIDOS',
  invalid: 'Las credenciales de acceso no son correctas.',
  ok: 'INICIO DE SESIÓN EXITOSO',
} as const;

export function loginBody(out: LoginOutcome, expiresIn: string) {
  if (out.kind === 'missing') throw new RequestError(400, LOGIN_MESSAGES.missing);
  if (out.kind === 'unstorable') throw new RequestError(400, out.message);
  if (out.kind === 'invalid') throw new RequestError(401, LOGIN_MESSAGES.invalid);
  const { operator, token } = out;
  return {
    status: true,
    msg: LOGIN_MESSAGES.ok,
    data: { token, tokenType: 'Bearer', expiresIn, user: { username: operator.username, role: operator.role } },
  };
}

export const RECIPIENTS_MESSAGES = { ok: 'DESTINATARIOS DE LA OFERTA', notFound: 'OFERTA NO ENCONTRADA' } as const;

export function recipientsBody(view: Awaited<ReturnType<typeof listRecipients>>) {
  if (!view) throw new RequestError(404, RECIPIENTS_MESSAGES.notFound);
  return { status: true, msg: RECIPIENTS_MESSAGES.ok, data: view };
}
