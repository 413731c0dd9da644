/**
 * Tracking tokens (D14): opaque (32 random bytes, base64url), stored only as
 * their SHA-256, tied to one expediente. A token lives until 24 hours after
 * the service ends, and never more than 7 days after it was issued. The
 * `tracking_token` table is written and read only here, through its store
 * (src/db/stores/tracking.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Offer } from '../../db/entities/index.js';
import { insertTrackingToken, liveTrackingToken } from '../../db/stores/tracking.js';
import { lastMoveInto } from '../../db/stores/transitions.js';
import { ENDED } from '../offers/lifecycle/stateMachine.js';

export const TOKEN_MAX_DAYS = 7;
export const AFTER_END_HOURS = 24;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const hashOf = (token: string): string => createHash('sha256').update(token).digest('hex');

export async function issueTrackingToken(em: EntityManager, offer: Offer): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const cap = new Date(Date.now() + TOKEN_MAX_DAYS * 86_400_000);
  await insertTrackingToken(em, hashOf(token), offer.uuid, cap);
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

/** The offer a live token names and when the token dies, or null (unknown, malformed or expired). */
export async function resolveTrackingToken(em: EntityManager, token: string): Promise<{ offer: Offer; expiresAt: Date } | null> {
  if (!TOKEN.test(token)) return null;
  const row = await liveTrackingToken(em, hashOf(token));
  if (!row) return null;
  const expiresAt = effectiveExpiry(new Date(row.expires_at), await serviceEndedAt(em, row.offer_uuid));
  if (expiresAt.getTime() <= Date.now()) return null;
  const offer = await em.findOne(Offer, { uuid: row.offer_uuid }, { populate: ['assignedTechnician', 'assignedCentral'] });
  return offer ? { offer, expiresAt } : null;
}
