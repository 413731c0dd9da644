/**
 * The state machine is data (STYLE 11, decisions D1): one table of allowed
 * moves that every endpoint and worker goes through. Each move happens inside
 * the caller's transaction, on a row locked FOR UPDATE, and writes an
 * append-only audit row. What a move does, and its two executors (one offer
 * through the unit of work, many set-based), are in moves.ts.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Offer } from '../../../db/entities/index.js';
import { DomainError, type RefusedOperation } from '../../errors.js';
import type { OfferState, Trigger } from './states.js';

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
  // D20: the assigned central changes the technician; the state stays (a move from a state to itself)
  { from: 'ASIGNADA', to: 'ASIGNADA', by: 'cambio-tecnico' },
  { from: 'EN_CAMINO', to: 'EN_CAMINO', by: 'cambio-tecnico' },
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

/** The states in which a service has ended (D16: its technician is released). */
export const ENDED: readonly OfferState[] = ['FINALIZADA', 'CANCELADA', 'INACTIVA', 'NO_ASIGNADA', 'EXPIRADA'];

/** The triggers that create an offer. */
export type CreationTrigger = Extract<Trigger, 'oferta' | 'asignacion-directa'>;

/** The state an offer is created in ((none) → ABIERTA or ASIGNADA, D1), read from the table. */
export function creationState(by: CreationTrigger): OfferState {
  const move = TRANSITIONS.find((m) => m.from === null && m.by === by);
  if (!move) throw new Error(`no creation by ${by} in the transition table`);
  return move.to;
}
