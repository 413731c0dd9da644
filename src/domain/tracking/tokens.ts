/**
 * Tracking tokens (D14, D24): opaque, stored only as their SHA-256, tied to
 * one expediente. A token lives until 24 hours after the service ends, and
 * never more than 7 days after it was issued. Two kinds, told apart by their
 * shape and by the row's scope:
 * - the customer's token (32 random bytes, base64url): the page's cookie, the
 *   chat, the customer socket and the survey; "Salir" (or its API twin)
 *   deletes it, and it is refused from then on;
 * - a share link's token (`pub_` and 43 characters, scope `share`, issued by
 *   POST /tracking/share to the holder of a customer token): it reads the
 *   public follow-up (POST /tracking/track/public) and nothing else, and
 *   lives as long as the token it was issued from would.
 * The `tracking_token` table is written and read only here, through its
 * store (src/db/stores/tracking.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Offer } from '../../db/entities/index.js';
import { deleteTrackingToken, insertTrackingToken, liveShareTokens, liveTrackingToken } from '../../db/stores/tracking.js';
import { lastMoveInto } from '../../db/stores/transitions.js';
import { DomainError } from '../errors.js';
import { ENDED } from '../offers/lifecycle/stateMachine.js';
import type { Runtime } from '../ports.js';

export const TOKEN_MAX_DAYS = 7;
export const AFTER_END_HOURS = 24;
/** live share links one service may have at once */
export const MAX_SHARE_LINKS = 5;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const SHARE_PREFIX = 'pub_';
const SHARE_TOKEN = /^pub_[A-Za-z0-9_-]{43}$/;

/** Whether a credential has the shape of a customer's tracking token (never a share link, a JWT nor a technician token). */
export const isTrackingToken = (token: string): boolean => TOKEN.test(token);

export const trackingTokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

export async function issueTrackingToken(em: EntityManager, offer: Offer): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const cap = new Date(Date.now() + TOKEN_MAX_DAYS * 86_400_000);
  await insertTrackingToken(em, trackingTokenHash(token), offer.uuid, cap);
  const ended = await serviceEndedAt(em, offer.uuid);
  return { token, expiresAt: effectiveExpiry(cap, ended) };
}

/** When the service ended (its move into an ended state), or null while it goes on. */
export async function serviceEndedAt(em: EntityManager, offerUuid: string): Promise<Date | null> {
  return lastMoveInto(em, offerUuid, ENDED);
}

export function effectiveExpiry(cap: Date, endedAt: Date | null): Date {
  if (!endedAt) return cap;
  const afterEnd = new Date(endedAt.getTime() + AFTER_END_HOURS * 3_600_000);
  return afterEnd < cap ? afterEnd : cap;
}

export interface TrackingSession {
  offer: Offer;
  expiresAt: Date;
  /** the token's SHA-256 (how its sockets are found and re-checked) */
  tokenHash: string;
}

async function resolve(em: EntityManager, token: string, scope: 'full' | 'share'): Promise<TrackingSession | null> {
  if (!(scope === 'full' ? TOKEN : SHARE_TOKEN).test(token)) return null;
  const tokenHash = trackingTokenHash(token);
  const row = await liveTrackingToken(em, tokenHash, scope);
  if (!row) return null;
  const expiresAt = effectiveExpiry(new Date(row.expires_at), await serviceEndedAt(em, row.offer_uuid));
  if (expiresAt.getTime() <= Date.now()) return null;
  const offer = await em.findOne(Offer, { uuid: row.offer_uuid }, { populate: ['assignedTechnician', 'assignedCentral'] });
  return offer ? { offer, expiresAt, tokenHash } : null;
}

/** The offer a live customer token names and when the token dies, or null (unknown, malformed, expired, revoked, or a share link). */
export function resolveTrackingToken(em: EntityManager, token: string): Promise<TrackingSession | null> {
  return resolve(em, token, 'full');
}

/**
 * The offer a live share link names (POST /tracking/track/public): a share
 * link, never a customer token (that one answers 401 saying so, so an
 * integrator learns to share links instead of its token).
 */
export async function resolveShareToken(em: EntityManager, token: string): Promise<TrackingSession> {
  const session = await resolve(em, token, 'share');
  if (session) return session;
  if (isTrackingToken(token) && (await resolve(em, token, 'full'))) throw new DomainError('tracking.not-a-share-link');
  throw new DomainError('tracking.token-invalid');
}

/** A new share link for the service a live customer token names: 401 for a dead token, 429 past MAX_SHARE_LINKS live ones. */
export async function issueShareToken(em: EntityManager, token: string): Promise<{ token: string; expiresAt: Date }> {
  const session = await resolveTrackingToken(em, token);
  if (!session) throw new DomainError('tracking.token-invalid');
  if ((await liveShareTokens(em, session.offer.uuid)) >= MAX_SHARE_LINKS) throw new DomainError('tracking.too-many-share-links', { max: MAX_SHARE_LINKS });
  const share = SHARE_PREFIX + randomBytes(32).toString('base64url');
  await insertTrackingToken(em, trackingTokenHash(share), session.offer.uuid, session.expiresAt, 'share');
  return { token: share, expiresAt: session.expiresAt };
}

/** Deletes a customer token ("Salir"): the service and the hash its sockets carry, or null when it named none. */
export async function revokeTrackingToken(em: EntityManager, token: string): Promise<{ offerUuid: string; tokenHash: string } | null> {
  if (!TOKEN.test(token)) return null;
  const tokenHash = trackingTokenHash(token);
  const offerUuid = await deleteTrackingToken(em, tokenHash);
  return offerUuid ? { offerUuid, tokenHash } : null;
}

/** The bus event that closes the sockets of a revoked tracking token (src/realtime/hub.ts). */
export const TRACKING_REVOKED_EVENT = 'tracking.revoked';

/**
 * Signs a customer out ("Salir", D24): the token is deleted, so the page, the
 * chat and the survey refuse it, and its open sockets on every API process
 * are closed (4401). A token that names nothing does nothing.
 */
export async function signOutTracking(rt: Pick<Runtime, 'orm' | 'events' | 'log'>, token: string): Promise<void> {
  const revoked = await revokeTrackingToken(rt.orm.em.fork(), token);
  if (!revoked) return;
  await rt.events
    .publish({ kind: 'trackingToken', offerUuid: revoked.offerUuid, tokenHash: revoked.tokenHash }, TRACKING_REVOKED_EVENT, {})
    .catch((err: unknown) => rt.log.warn({ err, uuid: revoked.offerUuid }, 'tracking revocation not published; its sockets close at the next re-check'));
}
