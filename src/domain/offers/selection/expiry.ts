/**
 * Expiries in batches, without the ORM's unit of work: SIN_RESPUESTA →
 * EXPIRADA (D1, OFFER_MAX_OPEN_MS after creation) for the job's own offer and
 * every other unanswered offer past its expiry that nobody holds, in one
 * transaction, as windows close (closing.ts). An expiry job runs in the
 * time-critical process, and every window closed unanswered has one: one
 * unit-of-work transaction each would make the closings of that later minute
 * late.
 *
 * It makes the move through the moves' set-based executor
 * (lifecycle/moves.ts), which writes what `transition` writes for it: the
 * offer's state and `updated_at`, the audit row, and the generator's state
 * notice (D12; an unanswered offer has no central to tell and no technician
 * to release), and declares the same announcements after commit.
 * test/offers/expiryForms.test.ts keeps the rows of both forms equal.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { lockExpiredOffers } from '../../../db/stores/offers.js';
import { requireCommitSteps } from '../lifecycle/announce.js';
import { applyMoves, planMove } from '../lifecycle/moves.js';
import type { DueWindow } from './closing.js';

/**
 * Locks the job's own offer (waiting for it) and up to `limit` other
 * SIN_RESPUESTA offers past their expiry that no one else holds (SKIP
 * LOCKED). Returns those still SIN_RESPUESTA, the own first; the own one
 * whatever its expiry, as the job for it was due.
 */
export async function lockExpired(em: EntityManager, ownUuid: string, limit: number, now: Date): Promise<DueWindow[]> {
  const rows = (await lockExpiredOffers(em, ownUuid, limit, now)) as Array<DueWindow & { own: boolean }>;
  return rows.filter((w) => w.state === 'SIN_RESPUESTA').map(({ own: _own, ...w }) => w);
}

/**
 * Expires locked SIN_RESPUESTA offers in the caller's root transaction: the
 * moves, their audit rows and the generators' state notices in two
 * statements whatever their number; each move's announcements are declared
 * on the transaction, as `transition` declares them.
 */
export async function expireLocked(em: EntityManager, offers: readonly DueWindow[], actor: string): Promise<void> {
  requireCommitSteps(em);
  if (!offers.length) return;
  const at = new Date();
  const moves = offers.map((o) =>
    planMove(
      { uuid: o.uuid, state: o.state, generatorId: o.generator.id, motivo: o.motivo, codigoServicio: o.codigoServicio, codigoSolicitud: null, technicianId: null },
      { to: 'EXPIRADA', by: 'expiracion', actor },
      { generator: o.generator, novelties: [], at },
    ),
  );
  await applyMoves(em, moves);
}
