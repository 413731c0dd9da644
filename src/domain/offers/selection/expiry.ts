/**
 * Expiries in batches, without the ORM's unit of work (issue 12, fifteenth
 * part): SIN_RESPUESTA → EXPIRADA (D1, OFFER_MAX_OPEN_MS after creation) for
 * the job's own offer and every other unanswered offer past its expiry that
 * nobody holds, in one transaction, as windows close (closing.ts). An expiry
 * job runs in the time-critical process, and every window closed unanswered
 * has one, OFFER_MAX_OPEN_MS later: one unit-of-work transaction each made
 * the closings of that later minute late (deadline → window closed p99 0.6 s
 * at 240 offers/s, 5.3 s at 320/s, with expiries coming at the rate the
 * windows closed).
 *
 * It writes what `transition` writes for this move: the offer's state and
 * `updated_at`, the audit row, and the generator's state notice (D12; an
 * unanswered offer has no central to tell and no technician to release), and
 * declares the same announcements after commit.
 * test/offers/expiryForms.test.ts keeps the rows of both forms equal.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { prepared, sql } from '../../../db/sql.js';
import { auditActor } from '../../../limits.js';
import { stateNotices } from '../../notifications/plan.js';
import { deliveryRow, insertDeliveries } from '../../../webhooks/deliveries.js';
import { announceOnCommit, requireCommitSteps } from '../lifecycle/announce.js';
import { canMove, refusedMove, type TransitionResult } from '../lifecycle/stateMachine.js';
import { lockBatch, lockingBatch, type DueWindow } from './closing.js';

/** The own offer, then others past their expiry, oldest first. */
const LOCK_EXPIRED = lockingBatch(`o.state = 'SIN_RESPUESTA' and o.expires_at <= $2`, 'o.expires_at');

/**
 * Locks the job's own offer (waiting for it) and up to `limit` other
 * SIN_RESPUESTA offers past their expiry that no one else holds (SKIP
 * LOCKED). Returns those still SIN_RESPUESTA, the own first; the own one
 * whatever its expiry, as the job for it was due.
 */
export async function lockExpired(em: EntityManager, ownUuid: string, limit: number, now: Date): Promise<DueWindow[]> {
  const rows = await lockBatch(em, LOCK_EXPIRED, ownUuid, limit, now);
  return rows.filter((w) => w.state === 'SIN_RESPUESTA').map(({ own: _own, ...w }) => w);
}

/** The offers' move and their audit rows, in one statement (the keys as an array, as closing.ts's CLOSE). */
const EXPIRE = prepared(`with moved as (
       update offer o set state = 'EXPIRADA', updated_at = $1 where o.uuid = any($2::uuid[])
     )
     insert into offer_transition (offer_uuid, from_state, to_state, actor, at)
     select u, 'SIN_RESPUESTA', 'EXPIRADA', $3, $1 from unnest($2::uuid[]) as u`);

/**
 * Expires locked SIN_RESPUESTA offers in the caller's root transaction: the
 * moves, their audit rows and the generators' state notices in two
 * statements whatever their number; each move's announcements are declared
 * on the transaction, as `transition` declares them.
 */
export async function expireLocked(em: EntityManager, offers: readonly DueWindow[], actor: string): Promise<void> {
  requireCommitSteps(em);
  if (!offers.length) return;
  const fecha = new Date().toISOString();
  const deliveries: Parameters<typeof insertDeliveries>[1] = [];
  for (const o of offers) {
    if (!canMove(o.state, 'EXPIRADA', 'expiracion')) throw refusedMove(o.state, 'expiracion', 'EXPIRADA');
    const notificationIds = stateNotices(o, o.generator, o.state, 'EXPIRADA', [], fecha).map((n) => {
      const row = deliveryRow({ offer: o.uuid, kind: n.kind, receiver: n.receiver.id, url: n.url, body: { ...n.body }, eventHeader: true });
      deliveries.push(row);
      return row.id;
    });
    const result: TransitionResult = { from: o.state, to: 'EXPIRADA', notificationIds };
    announceOnCommit(em, { uuid: o.uuid, generatorId: o.generator.id }, result);
  }
  await sql(em, EXPIRE, [fecha, offers.map((o) => o.uuid), auditActor(actor)]);
  await insertDeliveries(em, deliveries);
}
