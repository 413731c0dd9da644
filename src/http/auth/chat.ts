/**
 * Who takes part in a service's chat (D14), and on which service: the route's
 * `:expediente` resolved to its offer, and the caller to a ChatViewer.
 * - the customer: `Authorization: Bearer <tracking token>` naming that service;
 * - the assigned technician: its own bearer token (D20), or its central's
 *   `x-apikey` plus `x-dni-tecnico` (the key's endpoint list does not gate chat);
 * - the generator that owns the offer: HTTP Basic (reads only);
 * - an operator: `Authorization: Bearer <JWT>` (reads only).
 * A caller that takes no part in the service gets 404 EXPEDIENTE NO
 * ENCONTRADO, exactly as for an unknown one; the customer of a service not
 * assigned yet gets 403.
 */
import type { Middleware } from 'koa';
import type { Caller } from '../../api/operation.js';
import { AUTH_MESSAGES, authenticateApiKey, authenticateBasic } from '../../auth/credentials.js';
import { operatorOfToken } from '../../auth/jwt.js';
import { technicianOfApiUser } from '../../db/stores/technicians.js';
import type { ChatViewer } from '../../domain/chat/chat.js';
import { DomainError } from '../../domain/errors.js';
import { findExpediente } from '../../domain/services/expediente.js';
import { TRACKING_MESSAGES } from '../../api/customer/messages.js';
import { resolveTrackingToken } from '../../domain/tracking/tokens.js';
import { IDENTITY_LIMITS } from '../../limits.js';
import type { Runtime } from '../../domain/ports.js';
import { TECHNICIAN_AUTH_MESSAGES } from '../../auth/technician.js';
import { authenticateTechnicianToken, isTechnicianToken } from '../../auth/technicianToken.js';
import { isStorableText } from '../../text.js';
import type { AppState } from '../context.js';
import { controllerError, keyError } from '../../envelopes.js';

/** The chat's service and viewer (the operations' caller, src/api/operation.ts). */
export type ChatCaller = NonNullable<Caller['chat']>;

declare module '../context.js' {
  interface AppState {
    chat?: ChatCaller;
  }
}

const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]+$/;

export function chatAuth(rt: Pick<Runtime, 'orm' | 'config'>): Middleware<AppState> {
  return async (ctx, next) => {
    const em = rt.orm.em.fork();
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];
    const apiKey = ctx.get('x-apikey');
    const guard = ctx.authFailures?.forClient(ctx.ip);
    const offer = await findExpediente(em, String(ctx.params.expediente ?? ''));
    let viewer: ChatViewer;
    let takesPart: boolean;
    if (bearer && isTechnicianToken(bearer)) {
      // checked against the current state on every use (D20); a colleague's service is a stranger's
      const cred = await authenticateTechnicianToken(em, bearer, null);
      viewer = { kind: 'tecnico', technicianId: cred.technicianId };
      takesPart = !!offer?.codigoServicio && offer.assignedTechnician?.id === cred.technicianId;
    } else if (bearer && JWT_SHAPE.test(bearer)) {
      const op = await operatorOfToken(em, bearer, rt.config.jwtSecret);
      if (!op) throw controllerError(401, AUTH_MESSAGES.basicInvalid);
      viewer = { kind: 'operador' };
      takesPart = true;
    } else if (bearer) {
      const session = await resolveTrackingToken(em, bearer);
      if (!session) throw controllerError(401, TRACKING_MESSAGES.tokenInvalid);
      viewer = { kind: 'cliente' };
      takesPart = offer !== null && session.offer.uuid === offer.uuid;
      if (takesPart && !offer!.codigoServicio) throw new DomainError('chat.closed', { state: offer!.state, reason: 'not-assigned' });
    } else if (apiKey) {
      const user = await authenticateApiKey(em, apiKey, null, guard);
      const dni = ctx.get('x-dni-tecnico');
      if (!dni) throw keyError(401, TECHNICIAN_AUTH_MESSAGES.dniMissing);
      if (!isStorableText(dni)) throw keyError(400, TECHNICIAN_AUTH_MESSAGES.dniUnstorable);
      if (dni.length > IDENTITY_LIMITS.dni) throw new DomainError('expediente.not-found');
      const tech = await technicianOfApiUser(em, dni, user.id);
      viewer = { kind: 'tecnico', technicianId: tech?.id ?? -1 };
      // Before ASIGNADA no technician takes part (D14): a selected one is not assigned yet.
      takesPart = !!tech && !!offer?.codigoServicio && offer.assignedTechnician?.id === tech.id;
    } else {
      const user = await authenticateBasic(em, ctx.get('authorization') || undefined, null, guard);
      viewer = { kind: 'generador' };
      takesPart = offer !== null && offer.generator.id === user.id;
    }
    if (!offer || !takesPart) throw new DomainError('expediente.not-found');
    ctx.state.chat = { offer, viewer };
    await next();
  };
}
