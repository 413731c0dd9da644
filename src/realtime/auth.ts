/**
 * Who opens a socket (D10): authenticated once, at the HTTP upgrade, with the
 * same validators and envelopes as the HTTP API (spec 5).
 * - a generator: `Authorization: Basic` (permission for /oferta);
 * - a technician: its own token, `Authorization: Bearer tec_…` (D20, its
 *   central's permission for /aceptacion), re-checked periodically while the
 *   socket is open (server.ts); or its central's `x-apikey` (permission for
 *   /aceptacion) plus `x-dni-tecnico`, a technician of a central that key's
 *   user owns;
 * - an operator: `Authorization: Bearer <JWT>`, or `?token=<JWT>` because
 *   browsers cannot set headers on a WebSocket;
 * - a customer: `?tracking=<tracking token>` (D14), for its one service, or
 *   the customer page's httpOnly cookie when no other credential is given.
 * Failures throw the HttpError the HTTP API would answer (401 or 403, or the
 * failure limit's 429 when `guard` is given).
 */
import type { IncomingMessage } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AUTH_MESSAGES, authenticateApiKey, authenticateBasic } from '../auth/credentials.js';
import type { AuthGuard } from '../auth/failLimit.js';
import { operatorOfToken } from '../auth/jwt.js';
import { technicianOfApiUser } from '../db/stores/technicians.js';
import { controllerError, keyError, systemError } from '../envelopes.js';
import { TRACKING_MESSAGES } from '../api/customer/messages.js';
import { resolveTrackingToken } from '../domain/tracking/tokens.js';
import { IDENTITY_LIMITS } from '../limits.js';
import { TECHNICIAN_AUTH_MESSAGES, TRACKING_COOKIE } from '../auth/technician.js';
import { authenticateTechnicianToken, isTechnicianToken } from '../auth/technicianToken.js';
import { isStorableText } from '../text.js';

export type Identity =
  | { kind: 'generator'; apiUserId: number; username: string }
  | { kind: 'technician'; apiUserId: number; technicianId: number; dniTecnico: string; nit: string; tokenHash?: string }
  | { kind: 'operator'; operatorId: number; username: string }
  /** a customer following one service with its tracking token (`/v3?tracking=<token>`, D14) */
  | { kind: 'customer'; offerUuid: string };

export type ClientKind = Identity['kind'];

/** The endpoint whose permission each role's socket requires (spec 5.1.4, 5.2). */
export const SOCKET_ENDPOINTS = { generator: '/oferta', technician: '/aceptacion' } as const;


function cookie(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k !== name) continue;
    try {
      return decodeURIComponent(v.join('='));
    } catch {
      return null; // a malformed %-escape names no token
    }
  }
  return null;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return (Array.isArray(v) ? v[0] : v) || undefined;
}

export async function authenticateUpgrade(
  em: EntityManager,
  req: IncomingMessage,
  url: URL,
  jwtSecret: string,
  guard?: AuthGuard,
): Promise<Identity> {
  const authorizationHeader = header(req, 'authorization');
  const tracking = url.searchParams.get('tracking') ?? (authorizationHeader || header(req, 'x-apikey') ? null : cookie(req, TRACKING_COOKIE));
  if (tracking !== null) {
    const session = await resolveTrackingToken(em, tracking);
    if (!session) throw controllerError(401, TRACKING_MESSAGES.tokenInvalid);
    return { kind: 'customer', offerUuid: session.offer.uuid };
  }
  const authorization = header(req, 'authorization');
  const bearer = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
  const token = bearer ?? url.searchParams.get('token') ?? undefined;
  if (token && isTechnicianToken(token)) {
    const cred = await authenticateTechnicianToken(em, token, SOCKET_ENDPOINTS.technician);
    return { kind: 'technician', apiUserId: cred.apiUserId, technicianId: cred.technicianId, dniTecnico: cred.dni, nit: cred.nit, tokenHash: cred.tokenHash };
  }
  if (token) {
    const op = await operatorOfToken(em, token, jwtSecret);
    if (!op) throw systemError(401, AUTH_MESSAGES.basicInvalid);
    return { kind: 'operator', operatorId: op.id, username: op.username };
  }

  const apiKey = header(req, 'x-apikey');
  if (apiKey && !authorization) {
    const user = await authenticateApiKey(em, apiKey, SOCKET_ENDPOINTS.technician, guard);
    const dni = header(req, 'x-dni-tecnico');
    if (!dni) throw keyError(401, TECHNICIAN_AUTH_MESSAGES.dniMissing);
    // No lookup with a document no technician can have (D19, issue 8.10).
    if (!isStorableText(dni)) throw keyError(400, TECHNICIAN_AUTH_MESSAGES.dniUnstorable);
    if (dni.length > IDENTITY_LIMITS.dni) throw keyError(403, TECHNICIAN_AUTH_MESSAGES.technicianUnknown);
    // One indexed join instead of an entity load: reconnect storms make this the upgrade's hot path.
    const tech = await technicianOfApiUser(em, dni, user.id);
    // Unknown, or another central's technician: a central never speaks for another one (D4).
    if (!tech) throw keyError(403, TECHNICIAN_AUTH_MESSAGES.technicianUnknown);
    return { kind: 'technician', apiUserId: user.id, technicianId: tech.id, dniTecnico: tech.dni, nit: tech.nit };
  }

  const user = await authenticateBasic(em, authorization, SOCKET_ENDPOINTS.generator, guard);
  return { kind: 'generator', apiUserId: user.id, username: user.username };
}
