/**
 * Statements on `idempotency_key` (D24, issue 29 item 8): one row per caller
 * and `Idempotency-Key`, claimed before the act, marked `acted_at` in the
 * act's own transaction, answered after it, deleted by the retention job 24
 * hours after it was first claimed. A row older than 24 hours that the job
 * has not deleted yet counts as absent.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Transaction } from '@mikro-orm/core';
import { prepared, sql, sqlCount } from '../sql.js';

/** How long a key holds its answer (D24: 24 hours). */
export const IDEMPOTENCY_TTL_HOURS = 24;

const LIVE = `i.created_at > now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`;

export interface IdempotencyClaim {
  caller: string;
  key: string;
  operationId: string;
  requestHash: string;
  /** how long the claim is held before another request may take it over (when its act never committed) */
  leaseMs: number;
}

/**
 * A new claim, or the takeover of one that can be taken: expired (older than
 * 24 hours), or unanswered, never acted, with the same request and its lease
 * over (its process died before acting). Returns the row's id, or null when
 * the key is held (answered, in flight, or acted without an answer).
 */
const CLAIM = prepared(`
  insert into idempotency_key as i (caller, key, operation_id, request_hash, locked_until)
  values ($1, $2, $3, $4, now() + make_interval(secs => $5::double precision / 1000))
  on conflict (caller, key) do update
     set operation_id = excluded.operation_id, request_hash = excluded.request_hash, locked_until = excluded.locked_until,
         created_at = case when ${LIVE} then i.created_at else now() end,
         status = null, body = null, headers = null, acted_at = null, answered_at = null
   where not (${LIVE})
      or (i.answered_at is null and i.acted_at is null and i.locked_until < now() and i.request_hash = excluded.request_hash)
  returning id`);

export async function claimIdempotencyKey(em: EntityManager, c: IdempotencyClaim): Promise<string | null> {
  const [row] = await sql<{ id: string }>(em, CLAIM, [c.caller, c.key, c.operationId, c.requestHash, c.leaseMs]);
  return row?.id ?? null;
}

export interface HeldKey {
  requestHash: string;
  /** the stored answer, when the first request finished */
  answer: { status: number; body: unknown; headers: Record<string, string> } | null;
  /** the first request's act committed */
  acted: boolean;
  /** the first request's lease is over (its process died, or it still runs past every timeout) */
  leaseOver: boolean;
}

const HELD = prepared(`
  select i.request_hash, i.status, i.body, i.headers, i.acted_at is not null as acted,
         coalesce(i.locked_until < now(), false) as lease_over
    from idempotency_key i
   where i.caller = $1 and i.key = $2 and ${LIVE}`);

/** The row that holds a key (null: none, or it expired meanwhile). */
export async function heldIdempotencyKey(em: EntityManager, caller: string, key: string): Promise<HeldKey | null> {
  const [row] = await sql<{ request_hash: string; status: number | null; body: unknown; headers: Record<string, string> | null; acted: boolean; lease_over: boolean }>(
    em,
    HELD,
    [caller, key],
  );
  if (!row) return null;
  return {
    requestHash: row.request_hash,
    answer: row.status === null ? null : { status: row.status, body: row.body, headers: row.headers ?? {} },
    acted: row.acted,
    leaseOver: row.lease_over,
  };
}

/** Marks the claim acted, on the act's own transaction (`trx`), so it commits or rolls back with the act. */
export async function markIdempotencyActed(em: EntityManager, id: string, trx: Transaction): Promise<void> {
  await em.getConnection().execute(`update idempotency_key set acted_at = coalesce(acted_at, now()) where id = ?`, [id], 'run', trx);
}

const ANSWER = prepared(`
  update idempotency_key set status = $2, body = $3::jsonb, headers = $4::jsonb, answered_at = now(), locked_until = null
   where id = $1 and answered_at is null`);

/** Stores the first answer of a claim. */
export async function storeIdempotentAnswer(em: EntityManager, id: string, status: number, body: unknown, headers: Record<string, string>): Promise<void> {
  await sqlCount(em, ANSWER, [id, status, JSON.stringify(body ?? null), JSON.stringify(headers)]);
}

/** Gives a claim up when its act never committed (a 5xx, a 429): the next request with the key acts. Returns false when it had acted. */
export async function releaseIdempotencyKey(em: EntityManager, id: string): Promise<boolean> {
  return (await sqlCount(em, `delete from idempotency_key where id = $1 and acted_at is null and answered_at is null`, [id])) > 0;
}

/** Deletes at most `batch` keys past their 24 hours; how many went. */
export async function pruneIdempotencyKeyBatch(em: EntityManager, batch: number): Promise<number> {
  return sqlCount(
    em,
    `delete from idempotency_key where id in (
       select id from idempotency_key where created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS}) limit $1)`,
    [batch],
  );
}

/** The retention of idempotency keys (run with the delivery log's, every six hours): every key past its 24 hours, in batches. */
export async function pruneIdempotencyKeys(em: EntityManager, batch = 5000): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await pruneIdempotencyKeyBatch(em, batch);
    total += n;
    if (n < batch) return total;
  }
}
