/**
 * Statements on `technician_token` (D20): a technician's bearer tokens, kept
 * only as the SHA-256 of the random token, with the fingerprint (SHA-256) of
 * its central's API key at issue. A token is live while it has not expired,
 * its technician and its central's API user are ACTIVO, the technician still
 * belongs to a central of that user, and the user's key still has that
 * fingerprint: every use reads this one statement, so any of those changes
 * refuses it at once.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { prepared, readDate, sql, sqlCount } from '../sql.js';

// The key's SHA-256 is what api_user keeps of it (D24), so the fingerprint is the stored hash itself.
const KEY_FINGERPRINT = `u.api_key_hash`;

/** What makes a token row `t` live, over its technician `tech`, central `c` and API user `u`. */
const LIVE = `t.expires_at > now()
         and tech.status = 'ACTIVO' and u.status = 'ACTIVO'
         and c.api_user_id = u.id
         and u.api_key_hash is not null and ${KEY_FINGERPRINT} = t.key_fingerprint`;

const JOINS = `technician_token t
        join technician tech on tech.id = t.technician_id
        join central c on c.id = tech.central_id
        join api_user u on u.id = t.api_user_id`;

/** Stores a token's hash for a technician of API user `apiUserId`'s central, with the key's fingerprint; its expiry. */
export async function insertTechnicianToken(em: EntityManager, tokenHash: string, technicianId: number, apiUserId: number, ttlS: number): Promise<Date> {
  const [row] = await sql<{ expires_at: Date }>(
    em,
    `insert into technician_token (token_hash, technician_id, api_user_id, key_fingerprint, expires_at)
     select $1, $2, u.id, ${KEY_FINGERPRINT}, now() + make_interval(secs => $4::int)
       from api_user u where u.id = $3 and u.api_key_hash is not null
     returning expires_at`,
    [tokenHash, technicianId, apiUserId, ttlS],
  );
  if (!row) throw new Error('technician token not stored: the API user has no key');
  return readDate(em, row.expires_at);
}

export interface LiveTechnicianToken {
  technician_id: number;
  dni: string;
  nit: string;
  api_user_id: number;
  endpoints: string[];
  expires_at: Date;
}

const LIVE_TOKEN = prepared(`
  select t.technician_id, tech.dni, c.nit, u.id as api_user_id, u.endpoints, t.expires_at
    from ${JOINS}
   where t.token_hash = $1 and ${LIVE}`);

/** The live token with this hash, with its technician and central (null: unknown, expired or revoked). */
export async function liveTechnicianToken(em: EntityManager, tokenHash: string): Promise<LiveTechnicianToken | null> {
  const [row] = await sql<LiveTechnicianToken>(em, LIVE_TOKEN, [tokenHash]);
  return row ?? null;
}

const LIVE_HASHES = prepared(`select t.token_hash, u.endpoints from ${JOINS} where t.token_hash = any($1::text[]) and ${LIVE}`);

/** Which of these token hashes are still live, each with its central's endpoint list: one statement for every technician socket of a process. */
export async function liveTechnicianTokenHashes(em: EntityManager, tokenHashes: readonly string[]): Promise<Map<string, string[]>> {
  if (!tokenHashes.length) return new Map();
  const rows = await sql<{ token_hash: string; endpoints: string[] }>(em, LIVE_HASHES, [tokenHashes]);
  return new Map(rows.map((r) => [r.token_hash, r.endpoints]));
}

/** Removes tokens expired before `before` (housekeeping). */
export async function deleteExpiredTechnicianTokens(em: EntityManager, before: Date = new Date()): Promise<number> {
  return sqlCount(em, `delete from technician_token where expires_at < $1`, [before]);
}
