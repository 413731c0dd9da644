/**
 * A batch of due windows closed without the ORM's unit of work: the
 * evaluation closes up to CLOSE_BATCH windows in one transaction, and
 * hydrating every response, central and technician as entities would cost
 * the time-critical worker most of its time per window. The batch is read as plain
 * rows (the offers locked in one statement, then every response with what the
 * notices need in a second) and moved set-based by the moves' set-based
 * executor (lifecycle/moves.ts: one statement updates the offers and inserts
 * their audit rows, one inserts their deliveries, whatever the batch's size).
 *
 * It makes exactly the two moves the evaluation makes (ABIERTA → ACEPTADA and
 * ABIERTA → SIN_RESPUESTA, by `evaluacion`), planned by `planMove` as
 * `selectResponse` plans them through the unit of work, with the same pure
 * builders for the ranking and the 6.1 body.
 * test/offers/closingForms.test.ts keeps the rows of both forms equal.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../../../config/index.js';
import { lockDueOffers, type LockedOfferRow } from '../../../db/stores/offers.js';
import { closingResponsesOf } from '../../../db/stores/responses.js';
import { selectionNovelties, type NoticeReceiver } from '../../notifications/plan.js';
import { deliveryRow, toSend, type ClaimedDelivery, type DeliveryRow } from '../../../db/stores/deliveries.js';
import { responseView } from '../acceptance/responses.js';
import { requireCommitSteps, type OfferRef } from '../lifecycle/announce.js';
import { applyMoves, assertMove, planMove, type MoveEffects } from '../lifecycle/moves.js';
import type { TransitionResult } from '../lifecycle/stateMachine.js';
import { acceptanceNotice } from './acceptanceNotification.js';
import { rankResponses, rankingEntries } from './ranking.js';
import type { Selection } from './selection.js';
import type { OfferState } from '../lifecycle/states.js';

/** A due window, locked, as the batch reads it. */
export type DueWindow = Omit<LockedOfferRow, 'state' | 'own' | 'generator'> & { state: OfferState; generator: NoticeReceiver };

export type ClosedWindow =
  | {
      kind: 'selected';
      uuid: string;
      selection: Selection;
      /** the 6.1, when its caller holds a place to send it (closeWindows' `claimNow`): to be claimed and sent right after the commit */
      claimed: ClaimedDelivery | null;
      deadlineAt: Date | null;
      expiresAt: Date | null;
    }
  | { kind: 'no-response'; uuid: string; ref: OfferRef; deadlineAt: Date | null; expiresAt: Date | null };

/**
 * Locks the job's own offer (waiting for it: a response being written holds
 * it) and up to `limit` other ABIERTA offers past their deadline that no one
 * else holds (SKIP LOCKED, so no two batches wait on each other). Returns the
 * ABIERTA ones, the own first. Without an own offer (a closing run's later
 * batches), only the others, and when the next window after `now` is due
 * (`next`, null when none is open; read in the same statement, ISS32-13).
 */
export async function lockDueWindows(
  em: EntityManager,
  ownUuid: string | null,
  limit: number,
  now: Date,
): Promise<{ windows: DueWindow[]; next?: Date | null }> {
  const { rows, next } = await lockDueOffers(em, ownUuid, limit, now);
  const windows = (rows as Array<DueWindow & { own: boolean }>).filter((w) => !w.own || w.state === 'ABIERTA').map(({ own: _own, ...w }) => w);
  return { windows, next };
}

/**
 * Closes locked ABIERTA windows in the caller's root transaction: each one
 * with responses is ACEPTADA by the best (D2), each without SIN_RESPUESTA.
 * The moves' announcements are declared on the transaction; the caller
 * declares what it does with the 6.1 deliveries and the expiries. A 6.1 for
 * which `claimNow` answers true (its caller holds a place to send it after
 * the commit) is returned with what its send needs; it is written pending
 * like the others, and claimed just before it is sent (acceptanceNotification.ts).
 */
export async function closeWindows(
  em: EntityManager,
  cfg: Config,
  windows: readonly DueWindow[],
  actor: string,
  claimNow: (deliveryId: string) => boolean = () => false,
): Promise<ClosedWindow[]> {
  requireCommitSteps(em);
  const byOffer = await closingResponsesOf(em, windows.map((w) => w.uuid));

  const at = new Date();
  const moves: MoveEffects[] = [];
  /** the 6.1 deliveries, written with the moves' own */
  const notifications: DeliveryRow[] = [];
  const closed: ClosedWindow[] = [];
  for (const w of windows) {
    const ref: OfferRef = { uuid: w.uuid, generatorId: w.generator.id };
    const own = byOffer.get(w.uuid) ?? [];
    const to = own.length ? 'ACEPTADA' : 'SIN_RESPUESTA';
    assertMove(w.state, to, 'evaluacion');
    const ranked = rankResponses(own);
    const chosen = ranked[0] ?? null;
    let deliveryId: string | null = null;
    let claimed: ClaimedDelivery | null = null;
    if (chosen) {
      const notice = acceptanceNotice(cfg, w, w.generator, chosen);
      if (notice) {
        const row = deliveryRow({ offer: w.uuid, kind: 'acceptance', receiver: w.generator.id, ...notice, eventHeader: false });
        deliveryId = row.id;
        notifications.push(row);
        if (claimNow(row.id)) claimed = toSend(row, w.generatorKeys);
      }
    }
    const subject = { uuid: w.uuid, state: w.state, generatorId: w.generator.id, motivo: w.motivo, codigoServicio: w.codigoServicio, codigoSolicitud: null, technicianId: null };
    const move = planMove(
      subject,
      {
        to,
        by: 'evaluacion',
        actor,
        ...(chosen
          ? {
              assignment: { centralId: chosen.central.id, technicianId: chosen.technician.id, responseId: chosen.id, ranking: rankingEntries(ranked) },
              techLat: chosen.techLat,
              techLng: chosen.techLng,
              detail: { responseId: chosen.id, centralId: chosen.central.id, technicianId: chosen.technician.id, deliveryId },
            }
          : {}),
      },
      { generator: w.generator, novelties: chosen ? selectionNovelties(own, chosen.central.id, 'ACEPTADA') : [], at },
    );
    moves.push(move);
    const result: TransitionResult = { from: move.from, to: move.to, notificationIds: move.deliveries.map((d) => d.id) };
    closed.push(
      chosen
        ? {
            kind: 'selected',
            uuid: w.uuid,
            selection: { offer: ref, result, deliveryId, accepted: responseView(chosen), technicianId: chosen.technician.id },
            claimed,
            deadlineAt: w.deadlineAt,
            expiresAt: w.expiresAt,
          }
        : { kind: 'no-response', uuid: w.uuid, ref, deadlineAt: w.deadlineAt, expiresAt: w.expiresAt },
    );
  }
  await applyMoves(em, moves, notifications);
  return closed;
}
