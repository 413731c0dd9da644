/**
 * A technician as the caller (D20): its own bearer token
 * (`Authorization: Bearer tec_…`, src/auth/technicianToken.ts), checked on
 * every request against the current state; or, as the spec has it, its
 * central's key, either alone (`apiKeyOrTechnician`: the central reports for
 * its technicians, PUT /posicion-tecnico and /estado-servicio, unchanged) or
 * with `x-dni-tecnico` (`technician`: the technician's own reads).
 */
import type { Middleware } from 'koa';
import type { Caller } from '../../api/operation.js';
import { authenticateApiKey } from '../../auth/credentials.js';
import { TECHNICIAN_AUTH_MESSAGES } from '../../auth/technician.js';
import { authenticateTechnicianToken, isTechnicianToken } from '../../auth/technicianToken.js';
import type { CredentialCache } from '../../auth/cache.js';
import { technicianOfApiUser } from '../../db/stores/technicians.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { keyError } from '../../envelopes.js';
import { IDENTITY_LIMITS } from '../../limits.js';
import { isStorableText } from '../../text.js';
import type { AppState } from '../context.js';

declare module '../context.js' {
  interface AppState {
    /** the technician calling as itself (its token, or its central's key and x-dni-tecnico) */
    technician?: NonNullable<Caller['technician']>;
  }
}

/** The technician token of an `Authorization: Bearer` header, or undefined (another kind of bearer, or none). */
export function technicianBearer(authorization: string): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  return bearer && isTechnicianToken(bearer) ? bearer : undefined;
}

/**
 * `withDni` false: the technician's token, or else the central's key exactly as
 * the key routes check it; true: the token, or else the key plus
 * `x-dni-tecnico` naming one of that central's technicians. `endpoint` gates
 * both by the central's profile (null: not gated).
 */
export function technicianAuth(em: () => EntityManager, endpoint: string | null, withDni: boolean, cache?: CredentialCache): Middleware<AppState> {
  return async (ctx, next) => {
    const token = technicianBearer(ctx.get('authorization'));
    if (token) {
      const cred = await authenticateTechnicianToken(em(), token, endpoint);
      ctx.state.technician = { id: cred.technicianId, dni: cred.dni };
      return next();
    }
    ctx.state.apiUser = await authenticateApiKey(em, ctx.get('x-apikey') || undefined, endpoint, ctx.authFailures?.forClient(ctx.ip), cache);
    if (!withDni) return next();
    const dni = ctx.get('x-dni-tecnico');
    if (!dni) throw keyError(401, TECHNICIAN_AUTH_MESSAGES.dniMissing);
    if (!isStorableText(dni)) throw keyError(400, TECHNICIAN_AUTH_MESSAGES.dniUnstorable);
    const tech = dni.length > IDENTITY_LIMITS.dni ? null : await technicianOfApiUser(em(), dni, ctx.state.apiUser.id);
    if (!tech) throw keyError(403, TECHNICIAN_AUTH_MESSAGES.technicianUnknown);
    ctx.state.technician = { id: tech.id, dni: tech.dni };
    return next();
  };
}
