/**
 * The customer's follow-up (D14, D16): `tracking_request` (who asked for a
 * code), `tracking_code` (codes, stored only as a keyed hash),
 * `tracking_token` (tokens, stored only as their SHA-256) and
 * `service_survey` (one survey per service). The rules (limits, lifetimes,
 * hashing) stay with src/domain/tracking. The technician's rate, averaged
 * over its surveys, is written by rateFromSurveys (./technicians.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';

/** Serialises, until the caller's transaction ends, the code requests made under one key. */
export async function lockCodeRequests(em: EntityManager, key: string): Promise<void> {
  await em.execute(`select pg_advisory_xact_lock(hashtext(?))`, [`tracking-request.${key}`]);
}

/** How many code requests were made under `key` in the last `seconds`. */
export async function recentCodeRequests(em: EntityManager, key: string, seconds: number): Promise<number> {
  const [{ n }] = await em.execute<Array<{ n: string }>>(
    `select count(*) as n from tracking_request where expediente = ? and at > now() - make_interval(secs => ?)`,
    [key, seconds],
  );
  return Number(n);
}

/** Records a code request: its offer (when the expediente names one), its key, and the phone when it matched. */
export async function insertCodeRequest(em: EntityManager, r: { offerUuid: string | null; key: string; phone: string | null; matched: boolean }): Promise<void> {
  await em.execute(`insert into tracking_request (offer_uuid, expediente, phone, matched) values (?, ?, ?, ?)`, [r.offerUuid, r.key, r.phone, r.matched]);
}

/** How many matching code requests named `phone` in the last day. */
export async function matchedRequestsToday(em: EntityManager, phone: string): Promise<number> {
  const [{ today }] = await em.execute<Array<{ today: string }>>(
    `select count(*) as today from tracking_request where phone = ? and matched and at > now() - interval '1 day'`,
    [phone],
  );
  return Number(today);
}

/** Retires the offer's unused codes (once one of them let the customer in). */
export async function retireCodes(em: EntityManager, offerUuid: string): Promise<void> {
  await em.execute(`update tracking_code set used_at = now() where offer_uuid = ? and used_at is null`, [offerUuid]);
}

/** Stores a code's hash for the offer, living until `expiresAt`. */
export async function insertCode(em: EntityManager, offerUuid: string, codeHash: string, expiresAt: Date): Promise<void> {
  await em.execute(`insert into tracking_code (offer_uuid, code_hash, expires_at) values (?, ?, ?)`, [offerUuid, codeHash, expiresAt]);
}

/** The offer's live codes (unused, unexpired, under `maxTries` tries), newest first, locked for the caller's transaction. */
export async function lockLiveCodes(em: EntityManager, offerUuid: string, maxTries: number): Promise<Array<{ id: string; code_hash: string }>> {
  return em.execute<Array<{ id: string; code_hash: string }>>(
    `select id, code_hash from tracking_code
      where offer_uuid = ? and used_at is null and expires_at > now() and tries < ?
      order by id desc for update`,
    [offerUuid, maxTries],
  );
}

/** Counts a wrong try against each of these codes, in one statement. */
export async function countWrongTry(em: EntityManager, codeIds: readonly string[]): Promise<void> {
  await em.execute(`update tracking_code set tries = tries + 1 where id in (?)`, [[...codeIds]]);
}

/** Marks a code used. */
export async function useCode(em: EntityManager, codeId: string): Promise<void> {
  await em.execute(`update tracking_code set used_at = now() where id = ?`, [codeId]);
}

/** Deletes at most `batch` requests (`at`) or codes (`expires_at`) more than a day old; how many went. */
export async function pruneTrackingBatch(em: EntityManager, table: 'tracking_request' | 'tracking_code', batch: number): Promise<number> {
  const column = table === 'tracking_request' ? 'at' : 'expires_at';
  const res = await em.execute<Array<{ id: string }>>(
    `delete from ${table} where id in (select id from ${table} where ${column} < now() - interval '1 day' limit ?) returning id`,
    [batch],
  );
  return res.length;
}

/** What a tracking token may do: `full` (the customer's) or `share` (the read-only public link, D24). */
export type TrackingScope = 'full' | 'share';

/** Stores a token's hash for the offer, living at most until `expiresAt`. */
export async function insertTrackingToken(em: EntityManager, tokenHash: string, offerUuid: string, expiresAt: Date, scope: TrackingScope = 'full'): Promise<void> {
  await em.execute(`insert into tracking_token (token_hash, offer_uuid, expires_at, scope) values (?, ?, ?, ?)`, [tokenHash, offerUuid, expiresAt, scope]);
}

/** The offer an unexpired token of `scope` (by its hash) names, and when the token dies (null: none). */
export async function liveTrackingToken(em: EntityManager, tokenHash: string, scope: TrackingScope = 'full'): Promise<{ offer_uuid: string; expires_at: Date } | null> {
  const [row] = await em.execute<Array<{ offer_uuid: string; expires_at: Date }>>(
    `select offer_uuid, expires_at from tracking_token where token_hash = ? and scope = ? and expires_at > now()`,
    [tokenHash, scope],
  );
  return row ?? null;
}

/** How many unexpired share links the service has. */
export async function liveShareTokens(em: EntityManager, offerUuid: string): Promise<number> {
  const [{ n }] = await em.execute<Array<{ n: string }>>(
    `select count(*) as n from tracking_token where offer_uuid = ? and scope = 'share' and expires_at > now()`,
    [offerUuid],
  );
  return Number(n);
}

/** Deletes one token (by its hash): it is refused from then on. Its service, or null when there was none. */
export async function deleteTrackingToken(em: EntityManager, tokenHash: string): Promise<string | null> {
  const [row] = await em.execute<Array<{ offer_uuid: string }>>(`delete from tracking_token where token_hash = ? returning offer_uuid`, [tokenHash]);
  return row?.offer_uuid ?? null;
}

/** Records a service's survey; a second one for the service violates its unique key. */
export async function insertSurvey(em: EntityManager, s: { offerUuid: string; technicianId: number | null; rating: number; comment: string | null }): Promise<void> {
  await em.execute(`insert into service_survey (offer_uuid, technician_id, rating, comment) values (?, ?, ?, ?)`, [s.offerUuid, s.technicianId, s.rating, s.comment]);
}

/** Whether the service's survey was answered. */
export async function serviceSurveyed(em: EntityManager, offerUuid: string): Promise<boolean> {
  const rows = await em.execute<Array<{ n: number }>>(`select 1 as n from service_survey where offer_uuid = ?`, [offerUuid]);
  return rows.length > 0;
}

/** Deletes at most `batch` tracking tokens expired more than `days` ago, set-based; how many went (retention). */
export async function pruneTrackingTokenBatch(em: EntityManager, days: number, batch: number): Promise<number> {
  const res = await em.execute<Array<{ token_hash: string }>>(
    `delete from tracking_token where token_hash in (
       select token_hash from tracking_token where expires_at < now() - make_interval(days => ?) limit ?)
     returning token_hash`,
    [days, batch],
  );
  return res.length;
}

/**
 * Blanks at most `batch` survey comments written more than `days` ago, set-based; how many (retention). The
 * rating stays: the technician's rate is the average of its surveys (rateFromSurveys).
 */
export async function blankSurveyCommentBatch(em: EntityManager, days: number, batch: number): Promise<number> {
  const res = await em.execute<Array<{ offer_uuid: string }>>(
    `update service_survey set comment = null where offer_uuid in (
       select offer_uuid from service_survey where comment is not null and created_at < now() - make_interval(days => ?) limit ?)
     returning offer_uuid`,
    [days, batch],
  );
  return res.length;
}
