/**
 * A technician's own credential (D20): `POST /tecnicos/token` issues an opaque
 * random bearer token (`tec_` and 43 base64url characters, 256 bits); only its
 * SHA-256 is stored (src/db/stores/technicianTokens.ts), with the fingerprint
 * of the central's key it was issued under. Every use reads the token's row
 * against the current state (expiry, the technician's and the API user's
 * status, the key's fingerprint), so a token is refused at once when any of
 * them changes: nothing to revoke by hand, nothing a signature could keep
 * valid after the fact. Sockets re-check theirs periodically
 * (src/realtime/server.ts). The token is never logged: it travels only in the
 * `Authorization` header and the issuing answer's body, neither of which is
 * logged.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiUser } from '../db/entities/index.js';
import { deleteExpiredTechnicianTokens, insertTechnicianToken, liveTechnicianToken, liveTechnicianTokenHashes, type LiveTechnicianToken } from '../db/stores/technicianTokens.js';
import { technicianOfApiUser } from '../db/stores/technicians.js';
import { keyError } from '../envelopes.js';
import { IDENTITY_LIMITS } from '../limits.js';
import { isStorableText } from '../text.js';
import { AUTH_MESSAGES, canUse } from './credentials.js';
import { TECHNICIAN_AUTH_MESSAGES } from './technician.js';

export const TECHNICIAN_TOKEN_MESSAGES = {
  /** unknown, expired, or revoked (technician or central INACTIVO, the key changed) */
  invalid: 'El token del técnico no es válido o ha expirado.',
  inactive: "El estado del técnico es 'INACTIVO'.",
  forbidden: AUTH_MESSAGES.keyForbidden,
} as const;

const PREFIX = 'tec_';
const TOKEN = /^tec_[A-Za-z0-9_-]{43}$/;

/** Whether a bearer credential has the technician token's shape (never an operator's JWT nor a tracking token). */
export const isTechnicianToken = (token: string): boolean => TOKEN.test(token);

export const technicianTokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The technician a live token stands for (the caller of its requests and its socket). */
export interface TechnicianCredential {
  technicianId: number;
  dni: string;
  nit: string;
  apiUserId: number;
  tokenHash: string;
}

/**
 * Issues a token for the technician with document `dni` of a central `user`
 * owns: 404 when there is none (another central's technician included, D4),
 * 403 when it is INACTIVO, in the key envelope (spec 5.2) of the route.
 */
export async function issueTechnicianToken(em: EntityManager, user: ApiUser, dni: string, ttlS: number): Promise<{ token: string; expiresAt: Date }> {
  if (!isStorableText(dni)) throw keyError(400, TECHNICIAN_AUTH_MESSAGES.dniUnstorable);
  const tech = dni.length > IDENTITY_LIMITS.dni ? null : await technicianOfApiUser(em, dni, user.id);
  if (!tech) throw keyError(404, TECHNICIAN_AUTH_MESSAGES.technicianUnknown);
  if (tech.status !== 'ACTIVO') throw keyError(403, TECHNICIAN_TOKEN_MESSAGES.inactive);
  const token = PREFIX + randomBytes(32).toString('base64url');
  const expiresAt = await insertTechnicianToken(em, technicianTokenHash(token), tech.id, user.id, ttlS);
  return { token, expiresAt };
}

/**
 * The technician a bearer token stands for; throws 401 (key envelope) when it
 * is not live, 403 when its central's profile does not enable `endpoint`
 * (null: not gated, as the chat and the technician's own reads).
 */
export async function authenticateTechnicianToken(em: EntityManager, token: string, endpoint: string | null): Promise<TechnicianCredential> {
  const row: LiveTechnicianToken | null = isTechnicianToken(token) ? await liveTechnicianToken(em, technicianTokenHash(token)) : null;
  if (!row) throw keyError(401, TECHNICIAN_TOKEN_MESSAGES.invalid);
  if (!canUse(row, endpoint)) throw keyError(403, TECHNICIAN_TOKEN_MESSAGES.forbidden);
  return { technicianId: row.technician_id, dni: row.dni, nit: row.nit, apiUserId: row.api_user_id, tokenHash: technicianTokenHash(token) };
}

/**
 * Which of these token hashes are still live and still allowed `endpoint` by
 * their central's profile (one statement; the sockets' periodic re-check, D24).
 */
export async function liveTokenHashes(em: EntityManager, hashes: readonly string[], endpoint: string | null = null): Promise<Set<string>> {
  const live = await liveTechnicianTokenHashes(em, hashes);
  return new Set([...live].filter(([, endpoints]) => canUse({ endpoints }, endpoint)).map(([hash]) => hash));
}

/** Whether one token hash is still live (a token socket's action). */
export async function isLiveTokenHash(em: EntityManager, hash: string): Promise<boolean> {
  return (await liveTechnicianTokenHashes(em, [hash])).has(hash);
}

/** The retention of technician tokens (run with the delivery log's): a day after they expire, they go. */
export function pruneTechnicianTokens(em: EntityManager): Promise<number> {
  return deleteExpiredTechnicianTokens(em, new Date(Date.now() - 24 * 3600 * 1000));
}
