/**
 * The state machine is data (STYLE 11, decisions D1): one table of allowed
 * moves that every endpoint and worker goes through. Each move happens inside
 * the caller's transaction, on a row locked FOR UPDATE, and writes an
 * append-only audit row. `transition` makes one move through the unit of
 * work; a batch of closing windows makes its moves set-based
 * (selection/closing.ts), checked against the same table and kept writing
 * the same rows by test/offers/closingForms.test.ts.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Offer, OfferTransition } from '../../../db/entities/index.js';
import { DomainError, type RefusedOperation } from '../../errors.js';
import { planStateNotifications } from '../../notifications/plan.js';
import { announceOnCommit, requireCommitSteps } from './announce.js';
import { ensureServiceCodes } from './codes.js';
import { ACTIVE_STATES, type OfferState, type Trigger } from './states.js';
import { auditActor } from '../../../limits.js';

export type { Trigger };

interface Move {
  from: OfferState | null;
  to: OfferState;
  by: Trigger;
}

/** Every allowed move (decisions D1). Nothing else can happen to an offer. */
export const TRANSITIONS: readonly Move[] = [
  { from: null, to: 'ABIERTA', by: 'oferta' },
  { from: null, to: 'ASIGNADA', by: 'asignacion-directa' },
  { from: 'ABIERTA', to: 'ACEPTADA', by: 'evaluacion' },
  { from: 'ABIERTA', to: 'ASIGNADA', by: 'aceptacion-propia' },
  { from: 'ABIERTA', to: 'SIN_RESPUESTA', by: 'evaluacion' },
  { from: 'SIN_RESPUESTA', to: 'ACEPTADA', by: 'aceptacion-tardia' },
  { from: 'SIN_RESPUESTA', to: 'EXPIRADA', by: 'expiracion' },
  { from: 'ACEPTADA', to: 'ASIGNADA', by: 'asignacion' },
  { from: 'ACEPTADA', to: 'INACTIVA', by: 'webhook-rechazado' },
  // an own-central assignment (D4b) whose acceptance notification the generator rejects (D5)
  { from: 'ASIGNADA', to: 'INACTIVA', by: 'webhook-rechazado' },
  { from: 'ABIERTA', to: 'NO_ASIGNADA', by: 'no-asignacion' },
  { from: 'SIN_RESPUESTA', to: 'NO_ASIGNADA', by: 'no-asignacion' },
  { from: 'ACEPTADA', to: 'NO_ASIGNADA', by: 'no-asignacion' },
  { from: 'ASIGNADA', to: 'CANCELADA', by: 'cancelacion' },
  { from: 'EN_CAMINO', to: 'CANCELADA', by: 'cancelacion' },
  { from: 'EN_SITIO', to: 'CANCELADA', by: 'cancelacion' },
  { from: 'ASIGNADA', to: 'EN_CAMINO', by: 'progreso' },
  { from: 'EN_CAMINO', to: 'EN_SITIO', by: 'progreso' },
  { from: 'ASIGNADA', to: 'FINALIZADA', by: 'finalize' },
  { from: 'EN_CAMINO', to: 'FINALIZADA', by: 'finalize' },
  { from: 'EN_SITIO', to: 'FINALIZADA', by: 'finalize' },
];

export function canMove(from: OfferState | null, to: OfferState, by: Trigger): boolean {
  return TRANSITIONS.some((m) => m.from === from && m.to === to && m.by === by);
}

/** A move the table does not allow, by `operation`, from the current state (D1: a 403 naming it). */
export function refusedMove(current: OfferState, operation: RefusedOperation, to?: OfferState): DomainError<'offer.move-refused'> {
  return new DomainError('offer.move-refused', { state: current, operation, ...(to ? { to } : {}) });
}

export interface TransitionInput {
  to: OfferState;
  by: Trigger;
  /** who made the move: `api-user:<username>`, `operator:<username>`, `central:<nit>`, `system:<job>` */
  actor: string;
  techLat?: number | null;
  techLng?: number | null;
  detail?: Record<string, unknown>;
}

export interface TransitionResult {
  from: OfferState | null;
  to: OfferState;
  /** webhook_delivery ids created in the same transaction; enqueued after commit (STYLE 6) by the declared announcement */
  notificationIds: string[];
}

/**
 * Reads the offer FOR UPDATE inside the current transaction. Use it before
 * deciding anything that depends on the offer's state.
 */
export async function lockOffer(em: EntityManager, uuid: string, where: Record<string, unknown> = {}): Promise<Offer | null> {
  return em.findOne(Offer, { uuid, ...where }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
}

/**
 * Moves a locked offer (see lockOffer) to `to`, writes the audit row and plans
 * the state notifications (D12) in the same transaction, and declares their
 * announcement on it (announce.ts: enqueued and published once it commits, so
 * no caller can forget them). An offer reaching ASIGNADA gets its service
 * codes (D6) here, whichever path assigned it. Throws `offer.move-refused`
 * (refusedMove) when the table does not allow it. Call inside a root
 * em.transactional; anywhere else it throws before changing anything.
 */
export async function transition(em: EntityManager, offer: Offer, input: TransitionInput): Promise<TransitionResult> {
  requireCommitSteps(em);
  const from = offer.state;
  if (!canMove(from, input.to, input.by)) throw refusedMove(from, input.by, input.to);
  offer.state = input.to;
  if (input.to === 'ASIGNADA') await ensureServiceCodes(em, offer);
  await holdOrReleaseTechnician(em, offer, from, input.to);
  em.create(OfferTransition, {
    offer,
    fromState: from,
    toState: input.to,
    actor: auditActor(input.actor),
    at: new Date(),
    techLat: input.techLat ?? null,
    techLng: input.techLng ?? null,
    detail: input.detail ?? null,
  });
  const notificationIds = await planStateNotifications(em, offer, from, input.to);
  await em.flush();
  const result = { from, to: input.to, notificationIds };
  announceOnCommit(em, { uuid: offer.uuid, generatorId: offer.generator.id }, result);
  return result;
}

/** The states in which a service has ended (D16: its technician is released). */
export const ENDED: readonly OfferState[] = ['FINALIZADA', 'CANCELADA', 'INACTIVA', 'NO_ASIGNADA', 'EXPIRADA'];

/** D16: the technician is busy with this service (also for a direct assignment, which is created ASIGNADA). */
export async function holdTechnician(em: EntityManager, offerUuid: string, technicianId: number): Promise<void> {
  await em.execute(`update technician set busy_offer_uuid = ? where id = ?`, [offerUuid, technicianId]);
}

/**
 * D16: the assigned technician is busy from ASIGNADA until the service ends,
 * and receives no new offers meanwhile (distribution skips busy technicians).
 * One statement each way, and none for the moves of an offer that never held
 * one (an expiry, a withdrawal before assignment). The newest assignment wins:
 * the release only clears the technician if it is still busy with this service.
 */
export async function holdOrReleaseTechnician(em: EntityManager, offer: Offer, from: OfferState, to: OfferState): Promise<void> {
  if (to === 'ASIGNADA' && offer.assignedTechnician) {
    await holdTechnician(em, offer.uuid, offer.assignedTechnician.id);
  } else if (ACTIVE_STATES.includes(from) && ENDED.includes(to)) {
    await em.execute(`update technician set busy_offer_uuid = null where busy_offer_uuid = ?`, [offer.uuid]);
  }
}

/** The triggers that create an offer. */
export type CreationTrigger = Extract<Trigger, 'oferta' | 'asignacion-directa'>;

/** The state an offer is created in ((none) → ABIERTA or ASIGNADA, D1), read from the table. */
export function creationState(by: CreationTrigger): OfferState {
  const move = TRANSITIONS.find((m) => m.from === null && m.by === by);
  if (!move) throw new Error(`no creation by ${by} in the transition table`);
  return move.to;
}
