/**
 * Selecting a response, whoever decides it: the evaluation at the deadline
 * (ABIERTA → ACEPTADA), an own-central acceptance (ABIERTA → ASIGNADA) or a
 * late acceptance (SIN_RESPUESTA → ACEPTADA). Inside the caller's
 * transaction, on the offer locked FOR UPDATE: the assignment, the stored
 * ranking, the audit row and the pending acceptance notification commit
 * together, so a selection happens once and is notified once.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../../../config/index.js';
import type { Offer, OfferResponse } from '../../../db/entities/index.js';
import type { Runtime } from '../../ports.js';
import type { OfferState } from '../lifecycle/states.js';
import { enqueueAcceptance, planAcceptanceNotification } from './acceptanceNotification.js';
import { afterCommit, type OfferRef } from '../lifecycle/announce.js';
import { publishOfferEvent, type ClosedResult, type OfferEventOf } from '../lifecycle/events.js';
import { rankingEntries } from './ranking.js';
import { freeServiceCodes } from '../lifecycle/codes.js';
import { responseView, type ResponseView } from '../acceptance/responses.js';
import type { TransitionResult, Trigger } from '../lifecycle/stateMachine.js';
import { transition } from '../lifecycle/moves.js';

export interface Selection {
  offer: OfferRef;
  result: TransitionResult;
  /** the pending acceptance notification; null when the generator has no endpoint for it */
  deliveryId: string | null;
  accepted: ResponseView;
}

export interface SelectionMove {
  to: OfferState;
  by: Trigger;
  actor: string;
}

/** `chosen` wins; `ranked` is every response considered, best first (stored with the selection, D2). */
export async function selectResponse(
  em: EntityManager,
  cfg: Config,
  offer: Offer,
  chosen: OfferResponse,
  ranked: OfferResponse[],
  move: SelectionMove,
): Promise<Selection> {
  const { generator } = await em.populate(offer, ['generator']);
  // An own-central acceptance assigns at once: its codes exist before the notification is planned (D16), and the
  // move keeps them (D6).
  if (move.to === 'ASIGNADA') Object.assign(offer, await freeServiceCodes(em, { codigoServicio: offer.codigoServicio ?? null, codigoSolicitud: offer.codigoSolicitud ?? null }));
  const deliveryId = planAcceptanceNotification(em, cfg, offer, generator, chosen);
  const result = await transition(em, offer, {
    ...move,
    assignment: { centralId: chosen.central.id, technicianId: chosen.technician.id, responseId: chosen.id, ranking: rankingEntries(ranked) },
    techLat: chosen.techLat ?? null,
    techLng: chosen.techLng ?? null,
    detail: { responseId: chosen.id, centralId: chosen.central.id, technicianId: chosen.technician.id, deliveryId },
  });
  return { offer: { uuid: offer.uuid, generatorId: generator.id }, result, deliveryId, accepted: responseView(chosen) };
}

/**
 * After the selection's commit (whose transition already announced its
 * state): the notification's job (unless the caller sends it itself), then
 * the live events.
 */
export async function announceSelection(
  rt: Runtime,
  sel: Selection,
  opts: { dispatch: boolean; closed: ClosedResult | null },
): Promise<void> {
  const deliveryId = sel.deliveryId;
  if (opts.dispatch && deliveryId) {
    await afterCommit(rt, 'enqueue acceptance notification', { uuid: sel.offer.uuid, deliveryId }, () => enqueueAcceptance(rt, deliveryId));
  }
  for (const e of selectionEvents(sel, opts.closed)) await publishOfferEvent(rt, e.offer, e.event, e.data);
}

/** The live events of a selection: `offer.accepted`, then `offer.closed` when it closed the window. */
export function selectionEvents(sel: Selection, closed: ClosedResult | null): OfferEventOf[] {
  const events: OfferEventOf[] = [{ offer: sel.offer, event: 'offer.accepted', data: { accepted: sel.accepted } }];
  if (closed) events.push({ offer: sel.offer, event: 'offer.closed', data: { result: closed } });
  return events;
}
