/**
 * Who opens a socket (D10): authenticated once, at the HTTP upgrade, with the
 * same validators and envelopes as the HTTP API (spec 5), then re-checked
 * while it is open (D24: `recheck`, run by server.ts every SOCKET_RECHECK_MS).
 * - a generator: `Authorization: Basic` (permission for /oferta);
 * - a technician: its own token, `Authorization: Bearer tec_…` (D20, its
 *   central's permission for /aceptacion); or its central's `x-apikey`
 *   (permission for /aceptacion) plus `x-dni-tecnico`, a technician of a
 *   central that key's user owns;
 * - an operator: `Authorization: Bearer <JWT>`, or `?token=<JWT>` because
 *   browsers cannot set headers on a WebSocket;
 * - a customer: `Authorization: Bearer <tracking token>` (D14), for its one
 *   service, or the customer page's httpOnly cookie when no other credential
 *   is given. A cookie is ambient (a browser sends it for any page that
 *   opens the socket), so that path also requires the browser's `Origin` to
 *   be the service's own (D24: PUBLIC_ORIGIN, or the request's host when it
 *   is unset outside production). `?tracking=` is refused: tokens stay out
 *   of URLs (and so out of proxies' logs).
 * Failures throw the HttpError the HTTP API would answer (401 or 403, or the
 * failure limit's 429 when `guard` is given).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AUTH_MESSAGES, authenticateApiKey, authenticateBasic } from '../auth/credentials.js';
import type { AuthGuard } from '../auth/failLimit.js';
import { operatorOfToken, operatorStillExists } from '../auth/jwt.js';
import { technicianOfApiUser, techniciansOfApiUser } from '../db/stores/technicians.js';
import { controllerError, keyError, systemError, type HttpError } from '../envelopes.js';
import { TRACKING_MESSAGES } from '../api/customer/messages.js';
import { isTrackingToken, resolveTrackingToken } from '../domain/tracking/tokens.js';
import { IDENTITY_LIMITS } from '../limits.js';
import { TECHNICIAN_AUTH_MESSAGES, TRACKING_COOKIE } from '../auth/technician.js';
import { authenticateTechnicianToken, isTechnicianToken } from '../auth/technicianToken.js';
import { isStorableText } from '../text.js';

export type Identity =
  | { kind: 'generator'; apiUserId: number; username: string }
  | { kind: 'technician'; apiUserId: number; technicianId: number; dniTecnico: string; nit: string; tokenHash?: string }
  | { kind: 'operator'; operatorId: number; username: string }
  /** a customer following one service with its tracking token (D14); `tokenHash` names its sockets for a sign-out (D24) */
  | { kind: 'customer'; offerUuid: string; tokenHash: string };

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

/**
 * How an open socket's credential is checked again (D24): technician tokens
 * together, one statement per process (`technicianToken`); a central's key
 * once per key for all its technicians' sockets (`centralKey`: the key, then
 * which of them are still its, one statement); any other by running its
 * upgrade's check again (`each`), once per distinct credential (`key`)
 * however many sockets share it. A check that throws an HttpError closes the
 * sockets (4401 for a 401, 4403 for a 403).
 */
export type Recheck =
  | { kind: 'technicianToken'; tokenHash: string }
  | { kind: 'centralKey'; key: string; apiKey: string; technicianId: number }
  | { kind: 'each'; key: string; run: (em: EntityManager) => Promise<unknown> };

/** A central's key checked again (its permission for /aceptacion): which of these technicians are still its; throws the key's HttpError. */
export async function recheckCentralKey(em: EntityManager, apiKey: string, technicianIds: readonly number[]): Promise<Set<number>> {
  const user = await authenticateApiKey(em, apiKey, SOCKET_ENDPOINTS.technician);
  return techniciansOfApiUser(em, technicianIds, user.id);
}

export interface Upgraded {
  identity: Identity;
  recheck: Recheck;
}

export interface UpgradeOptions {
  jwtSecret: string;
  /** the client's failure limit (D19) */
  guard?: AuthGuard;
  /** PUBLIC_ORIGIN (null: the request's own host, outside production) */
  publicOrigin: string | null;
}

/** The same secret gives the same key, never the secret itself. */
const keyOf = (kind: string, ...parts: string[]): string => `${kind}:${createHash('sha256').update(parts.join('\0')).digest('hex')}`;

/**
 * Whether a browser's `Origin` is the service's own (D24): PUBLIC_ORIGIN when
 * set; else (development) the host the request was sent to. No Origin, or
 * one that does not parse, is refused: browsers always send it on a socket.
 */
export function originAllowed(req: IncomingMessage, publicOrigin: string | null): boolean {
  const origin = header(req, 'origin');
  const parsed = origin ? URL.parse(origin) : null;
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) return false;
  if (publicOrigin) return parsed.origin === URL.parse(publicOrigin)?.origin;
  const host = header(req, 'host');
  return !!host && parsed.host === host.toLowerCase();
}

/** The customer of a live tracking token, re-checked by resolving it again (a sign-out or its expiry closes the socket). */
async function customerOf(em: EntityManager, token: string): Promise<Upgraded> {
  const session = await resolveTrackingToken(em, token);
  if (!session) throw controllerError(401, TRACKING_MESSAGES.tokenInvalid);
  const run = async (fresh: EntityManager) => {
    if (!(await resolveTrackingToken(fresh, token))) throw controllerError(401, TRACKING_MESSAGES.tokenInvalid);
  };
  return { identity: { kind: 'customer', offerUuid: session.offer.uuid, tokenHash: session.tokenHash }, recheck: { kind: 'each', key: keyOf('customer', token), run } };
}

/** The technician a central's key and document name (the key's permission for /aceptacion), or the HttpError of each failure. */
async function technicianOfKey(em: EntityManager, apiKey: string, dni: string | undefined, guard?: AuthGuard) {
  const user = await authenticateApiKey(em, apiKey, SOCKET_ENDPOINTS.technician, guard);
  if (!dni) throw keyError(401, TECHNICIAN_AUTH_MESSAGES.dniMissing);
  // No lookup with a document no technician can have (D19, issue 8.10).
  if (!isStorableText(dni)) throw keyError(400, TECHNICIAN_AUTH_MESSAGES.dniUnstorable);
  if (dni.length > IDENTITY_LIMITS.dni) throw keyError(403, TECHNICIAN_AUTH_MESSAGES.technicianUnknown);
  // One indexed join instead of an entity load: reconnect storms make this the upgrade's hot path.
  const tech = await technicianOfApiUser(em, dni, user.id);
  // Unknown, or another central's technician: a central never speaks for another one (D4).
  if (!tech) throw keyError(403, TECHNICIAN_AUTH_MESSAGES.technicianUnknown);
  return { user, tech };
}

export async function authenticateUpgrade(em: EntityManager, req: IncomingMessage, url: URL, opts: UpgradeOptions): Promise<Upgraded> {
  const { jwtSecret, guard } = opts;
  // D24: a tracking token never travels in a URL (proxies and browsers keep those).
  if (url.searchParams.has('tracking')) throw controllerError(400, TRACKING_MESSAGES.tokenInUrl);
  const authorization = header(req, 'authorization');
  const apiKey = header(req, 'x-apikey');
  const bearer = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
  if (bearer && isTrackingToken(bearer)) return customerOf(em, bearer);
  if (!authorization && !apiKey && !url.searchParams.has('token')) {
    const tracking = cookie(req, TRACKING_COOKIE);
    if (tracking !== null) {
      if (!originAllowed(req, opts.publicOrigin)) throw controllerError(403, TRACKING_MESSAGES.originRefused);
      return customerOf(em, tracking);
    }
  }
  const token = bearer ?? url.searchParams.get('token') ?? undefined;
  if (token && isTechnicianToken(token)) {
    const cred = await authenticateTechnicianToken(em, token, SOCKET_ENDPOINTS.technician);
    return {
      identity: { kind: 'technician', apiUserId: cred.apiUserId, technicianId: cred.technicianId, dniTecnico: cred.dni, nit: cred.nit, tokenHash: cred.tokenHash },
      recheck: { kind: 'technicianToken', tokenHash: cred.tokenHash },
    };
  }
  if (token) {
    const op = await operatorOfToken(em, token, jwtSecret);
    if (!op) throw systemError(401, AUTH_MESSAGES.basicInvalid);
    const run = async (fresh: EntityManager) => {
      // the session over (the JWT's expiry, or the session's a console socket token carries), or the operator deleted or renamed
      if (op.sessionEnds !== undefined && Date.now() >= op.sessionEnds * 1000) throw systemError(401, AUTH_MESSAGES.basicInvalid);
      if (!(await operatorStillExists(fresh, op))) throw systemError(401, AUTH_MESSAGES.basicInvalid);
    };
    return { identity: { kind: 'operator', operatorId: op.id, username: op.username }, recheck: { kind: 'each', key: keyOf('operator', token), run } };
  }

  if (apiKey && !authorization) {
    const dni = header(req, 'x-dni-tecnico');
    const { user, tech } = await technicianOfKey(em, apiKey, dni, guard);
    return {
      identity: { kind: 'technician', apiUserId: user.id, technicianId: tech.id, dniTecnico: tech.dni, nit: tech.nit },
      recheck: { kind: 'centralKey', key: keyOf('key', apiKey), apiKey, technicianId: tech.id },
    };
  }

  const user = await authenticateBasic(em, authorization, SOCKET_ENDPOINTS.generator, guard);
  const run = (fresh: EntityManager) => authenticateBasic(fresh, authorization, SOCKET_ENDPOINTS.generator);
  return { identity: { kind: 'generator', apiUserId: user.id, username: user.username }, recheck: { kind: 'each', key: keyOf('basic', authorization ?? ''), run } };
}

/** The close code of a credential refused on a re-check: 4401 (revoked, expired) or 4403 (INACTIVO, permission withdrawn). */
export function closeCodeOf(err: HttpError): number {
  return err.status === 403 ? 4403 : 4401;
}
