/**
 * Credentials of the API (spec 5.1, 5.2): HTTP Basic and the x-apikey
 * validator, checked the same way for an HTTP request (src/http/auth, the
 * Koa middleware) and a socket upgrade (src/realtime/auth.ts). Failures are
 * the HttpErrors of the spec's envelopes (system for Basic, key for x-apikey).
 */
import type { CredentialCache } from './cache.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiUser } from '../db/entities/index.js';
import { HttpError, keyError, systemBody, systemError } from '../envelopes.js';
import { IDENTITY_LIMITS } from '../limits.js';
import { isStorableText } from '../text.js';
import { UNAVAILABLE_MESSAGE, UNAVAILABLE_RETRY_AFTER_S, isOutage } from '../outage.js';
import type { AuthGuard } from './failLimit.js';
import { apiKeyHash, safeEqual, sha256Hex } from './passwords.js';

export const AUTH_MESSAGES = {
  basicMissing: 'No se han brindado las credenciales de acceso.',
  basicInvalid: 'Las credenciales de acceso no son correctas.',
  basicInactive: "El estado del usuario de API es 'INACTIVO'.",
  basicForbidden: 'No tiene permiso de acceso a este endpoint.',
  keyMissing: 'No se ha brindado la clave de acceso.',
  keyInvalid: 'La clave de acceso no es correcta.',
  keyInactive:
    "La solicitud no puede ser completada, debido a que el estado del usuario de API es 'INACTIVO'. Por favor, comuníquese con el administrador de la API.",
  keyForbidden:
    'La solicitud no puede ser completada, debido a que no tiene permiso de acceso a este endpoint. Por favor, comuníquese con el administrador de la API.',
  keyInternal: 'Error interno en la validación de la clave de acceso.',
  /** D19: a NUL or a lone surrogate in the credentials (400, never looked up) */
  basicUnstorable: 'Las credenciales de acceso contienen caracteres no permitidos.',
  keyUnstorable: 'La clave de acceso contiene caracteres no permitidos.',
} as const;

/**
 * Where a lookup reads: an EntityManager, or a function that forks one, called
 * only when the credentials are not in the cache (a hit forks nothing).
 */
export type LookupEm = EntityManager | (() => EntityManager);
const lookupEm = (em: LookupEm): EntityManager => (typeof em === 'function' ? em() : em);

/** Whether the user's profile enables `endpoint`; null: a route its endpoint list does not gate (chat, D14). */
export function canUse(user: Pick<ApiUser, 'endpoints'>, endpoint: string | null): boolean {
  return endpoint === null || user.endpoints.includes('*') || user.endpoints.includes(endpoint);
}

/** Username and password of an `Authorization: Basic` header, or null when absent or incomplete. */
export function parseBasic(header: string | undefined): { username: string; password: string } | null {
  if (!header) return null;
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const username = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  if (!username || !password) return null;
  return { username, password };
}

/**
 * The API user whose Basic credentials these are; throws the spec's 401/403
 * otherwise. Credentials no user can have are refused before any lookup: a NUL
 * or a lone surrogate (400, D19), or longer than the bounds of provisioning
 * (401, issue 8.10). With a `guard` (the client's failure limit, D19) a blocked
 * client gets 429 and a wrong password is counted.
 */
export async function authenticateBasic(
  em: LookupEm,
  header: string | undefined,
  endpoint: string | null,
  guard?: AuthGuard,
  cache?: CredentialCache,
): Promise<ApiUser> {
  const creds = parseBasic(header);
  if (!creds) throw systemError(401, AUTH_MESSAGES.basicMissing);
  if (!isStorableText(creds.username) || !isStorableText(creds.password)) throw systemError(400, AUTH_MESSAGES.basicUnstorable);
  if (creds.username.length > IDENTITY_LIMITS.username || creds.password.length > IDENTITY_LIMITS.password) {
    throw systemError(401, AUTH_MESSAGES.basicInvalid);
  }
  const attempt = await guard?.begin('basic', creds.username);
  const pair = `${creds.username}\0${creds.password}`;
  let user = cache?.get('basic', pair) ?? null;
  if (!user) {
    user = await lookupEm(em).findOne(ApiUser, { username: creds.username });
    // Hash even when the user is unknown, so both cases take the same time.
    const digest = sha256Hex(creds.password);
    const ok = safeEqual(digest, user?.passwordSha256 ?? '0'.repeat(64));
    if (!user || !ok) throw new HttpError(401, systemBody(AUTH_MESSAGES.basicInvalid), await attempt?.failed(user !== null));
    cache?.set('basic', pair, user);
  }
  attempt?.succeeded();
  if (user.status !== 'ACTIVO') throw systemError(403, AUTH_MESSAGES.basicInactive);
  if (!canUse(user, endpoint)) throw systemError(403, AUTH_MESSAGES.basicForbidden);
  return user;
}

/** The API user an x-apikey header belongs to; throws the spec's 401/403 otherwise (spec 5.2); `guard` as for Basic. */
export async function authenticateApiKey(
  em: LookupEm,
  key: string | undefined,
  endpoint: string | null,
  guard?: AuthGuard,
  cache?: CredentialCache,
): Promise<ApiUser> {
  if (!key) throw keyError(401, AUTH_MESSAGES.keyMissing);
  // Never looked up: a key with a NUL or a lone surrogate (D19), or longer than any key issued (8.10).
  if (!isStorableText(key)) throw keyError(400, AUTH_MESSAGES.keyUnstorable);
  if (key.length > IDENTITY_LIMITS.apiKey) throw keyError(401, AUTH_MESSAGES.keyInvalid);
  const attempt = await guard?.begin('key', key);
  let user = cache?.get('key', key) ?? null;
  if (!user) {
    let users: ApiUser[];
    try {
      // Keys are stored as their SHA-256 only (D24); a rotated key's previous hash holds until its grace ends.
      const hash = apiKeyHash(key);
      users = await lookupEm(em).find(
        ApiUser,
        { $or: [{ apiKeyHash: hash }, { previousApiKeyHash: hash, previousKeyUntil: { $gt: new Date() } }] },
        { limit: 2 },
      );
    } catch (err) {
      // PostgreSQL away: the error middleware's 503 in this envelope (D21)
      if (isOutage(err)) throw new HttpError(503, keyError(503, UNAVAILABLE_MESSAGE).body, { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) });
      throw keyError(500, AUTH_MESSAGES.keyInternal);
    }
    if (users.length !== 1) {
      const err = keyError(401, AUTH_MESSAGES.keyInvalid);
      throw new HttpError(401, err.body, await attempt?.failed(false));
    }
    user = users[0];
    cache?.set('key', key, user);
  }
  attempt?.succeeded();
  if (user.status !== 'ACTIVO') throw keyError(401, AUTH_MESSAGES.keyInactive);
  if (!canUse(user, endpoint)) {
    throw keyError(403, AUTH_MESSAGES.keyForbidden, { allowedEndpoints: user.endpoints, requestedEndpoint: endpoint });
  }
  return user;
}
