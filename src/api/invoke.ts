/**
 * An operation run as a value, without HTTP: `invoke(rt, operationId,
 * caller, rawInput)` → `{status, body}`, the answer HTTP gives to the same
 * input. The socket's actions (src/realtime/actions.ts, D10) call it with
 * the socket's caller: the same compiled validator (D19 checks first), the
 * same handler and presenter, any error through the same table in the
 * operation's envelope and wording, or the operation's own 500 message.
 */
import type { Runtime } from '../domain/ports.js';
import { errorAnswer } from './errorTable.js';
import { MESSAGES, envelopeBody, keyError, newErrorId, systemBody, systemError, type HttpError } from '../envelopes.js';
import { AUTH_MESSAGES, canUse } from '../auth/credentials.js';
import { Answer, endpointOf, type Caller, type OperationDecl } from './operation.js';
import { operationById } from './operations.js';
import { validateInput } from './validation.js';

export interface Invoked {
  status: number;
  body: unknown;
}

/** The 403 HTTP's authentication answers when the caller's API user may not call `op` (src/http/mount.ts), or null. */
export function permissionRefusal(op: OperationDecl, caller: Caller): HttpError | null {
  const user = caller.apiUser;
  if (!user || op.endpointGated === false) return null;
  if (op.auth === 'none' || op.auth === 'operator' || op.auth === 'chat') return null;
  const endpoint = endpointOf(op.path);
  if (canUse(user, endpoint)) return null;
  if (op.auth === 'basic' || op.auth === 'basicOrJwt') return systemError(403, AUTH_MESSAGES.basicForbidden);
  return keyError(403, AUTH_MESSAGES.keyForbidden, { allowedEndpoints: user.endpoints, requestedEndpoint: endpoint });
}

export async function invoke(rt: Runtime, operationId: string, caller: Caller, rawInput: unknown): Promise<Invoked> {
  const op = operationById(operationId);
  const { handle } = op;
  if (!handle) throw new Error(`${operationId} has no transport-neutral handler`);
  const envelope = op.envelope === 'html' ? 'controller' : op.envelope;
  const forbidden = permissionRefusal(op, caller);
  if (forbidden) return { status: forbidden.status, body: forbidden.body };
  try {
    const input = op.input ? validateInput(op, rawInput ?? {}) : rawInput;
    const out = await handle.call(op, rt, caller, input as never);
    return out instanceof Answer ? { status: out.status, body: out.body } : { status: 200, body: out };
  } catch (err) {
    const known = errorAnswer(err, envelope, op.wording);
    if (known) return { status: known.status, body: known.body };
    const errorId = newErrorId();
    rt.log.error({ err, errorId, operationId }, op.failure ?? 'operation failed');
    return { status: 500, body: op.failure ? envelopeBody(envelope, op.failure) : systemBody(MESSAGES.internal, errorId) };
  }
}
