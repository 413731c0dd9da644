/**
 * The one door for every offer move (D1). `planMove` computes, as data, all a
 * move does: the state it reaches, its audit row, the service codes it gives
 * (D6, on reaching ASIGNADA), the technician it holds or releases (D16), the
 * notices it plans (D12) and its live announcement (D10, declared on the
 * transaction, announce.ts). Two executors apply the same effects:
 *
 * - `transition`: one offer through the unit of work (entities, flushed in
 *   the caller's transaction);
 * - `applyMoves`: many offers set-based, one statement per table for the
 *   whole batch (the closing of windows, the expiries), and `createOffers`,
 *   the creations (POST /oferta, POST /asignacion-directa), whose offer rows
 *   are inserted with their audit rows in one statement.
 *
 * Nothing else writes `offer.state` or `offer_transition`, and nothing else
 * declares a move's announcement. test/offers/closingForms.test.ts and
 * expiryForms.test.ts keep both executors writing the same rows.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiUser, Central, Offer, OfferTransition, Technician, WebhookDelivery, type DeliveryKind } from '../../../db/entities/index.js';
import { insertOfferRecords, knownServiceTypeIds, moveOfferRecords, type OfferInsertRecord, type OfferMoveRecord } from '../../../db/stores/offers.js';
import { holdTechniciansForOffers, holdTechnicianForOffer, releaseTechnicianOfOffer, releaseTechniciansOfOffers } from '../../../db/stores/technicians.js';
import type { TransitionRecord } from '../../../db/stores/transitions.js';
import { auditActor } from '../../../limits.js';
import { deliveryRow, insertDeliveries, type DeliveryRow } from '../../../db/stores/deliveries.js';
import { stateNoticeFacts, stateNotices, type NoticeReceiver, type Novelty } from '../../notifications/plan.js';
import { afterCommit, announceOnCommit, onCommit, requireCommitSteps, type Announcement } from './announce.js';
import { serviceAssigned } from '../../services/events.js';
import { servicio, type Servicio } from '../../services/servicio.js';
import { freeServiceCodes, type ServiceCodes } from './codes.js';
import { canMove, creationState, ENDED, refusedMove, type CreationTrigger, type TransitionInput, type TransitionResult, type Trigger } from './stateMachine.js';
import { ACTIVE_STATES, type OfferState } from './states.js';

/** Delivery rows as a batch writes them (pending, or claimed at write, D5). */
type Deliveries = Parameters<typeof insertDeliveries>[1];

/** The assignment a selection makes with its move (D2, D4b): the winning response's central and technician. */
export interface Assignment {
  centralId: number;
  technicianId: number;
  responseId: number;
  /** every response considered, best first (D2) */
  ranking: unknown;
}

/** A delivery planned with a move besides its state notices (the direct assignment's push to the central, D12). */
export interface Push {
  kind: DeliveryKind;
  receiverId: number;
  url: string;
  body: Record<string, unknown>;
}

export interface MoveInput extends TransitionInput {
  /** the assignment the move makes, when it makes one */
  assignment?: Assignment;
  /** deliveries planned with the move, enqueued after commit with its state notices */
  pushes?: readonly Push[];
  /** D20: the service's new technician (a change of technician: the old one released, this one held) */
  reassign?: { technicianId: number };
  /** the detail of the generator's state notice, when the move names its own (D20: "CAMBIO DE TÉCNICO") */
  detalle?: string;
}

/** What a move needs to know of its offer, read before it. */
export interface MoveSubject {
  uuid: string;
  /** null: the move creates it */
  state: OfferState | null;
  generatorId: number;
  motivo: string | null;
  codigoServicio: string | null;
  codigoSolicitud: string | null;
  /** its technician before the move (D16) */
  technicianId: number | null;
}

/** What a move reads besides its offer: the notices' receivers, the codes reserved for it, its time. */
export interface MoveFacts<U extends NoticeReceiver = NoticeReceiver> {
  generator: U | null;
  novelties: ReadonlyArray<Novelty<U>>;
  /** D6: reserved for the move when `codesNeeded` says so */
  codes?: ServiceCodes;
  at: Date;
}

/** Everything a move does, as data; both executors apply exactly this. */
export interface MoveEffects {
  uuid: string;
  from: OfferState | null;
  to: OfferState;
  audit: TransitionRecord;
  assignment: Assignment | null;
  /** the codes the offer gets (D6); null when it needs none or has them */
  codes: ServiceCodes | null;
  /**
   * D16: from ASIGNADA the technician is busy with the service, and freed when an active service ends; D20: a change
   * of technician frees the old one and holds the new one (`replace`)
   */
  technician: { hold: number } | { release: true } | { replace: number } | null;
  /** its state notices and pushes (D12), rows with their ids */
  deliveries: DeliveryRow[];
  /** declared on the transaction (announce.ts); none for POST /oferta's creation, which nobody can follow yet */
  announcement: Announcement | null;
}

/** Throws `offer.move-refused` unless the table allows the move (D1). */
export function assertMove(from: OfferState | null, to: OfferState, by: Trigger): void {
  if (!canMove(from, to, by)) {
    if (from === null) throw new Error(`no creation ${to} by ${by} in the transition table`);
    throw refusedMove(from, by, to);
  }
}

/** D6: a move to ASIGNADA gives the offer the codes it lacks. */
export function codesNeeded(subject: Pick<MoveSubject, 'codigoServicio' | 'codigoSolicitud'>, to: OfferState): boolean {
  return to === 'ASIGNADA' && (subject.codigoServicio === null || subject.codigoSolicitud === null);
}

/** The effects of a move; pure. Throws when the table does not allow it. */
export function planMove<U extends NoticeReceiver>(subject: MoveSubject, input: MoveInput, facts: MoveFacts<U>): MoveEffects {
  const from = subject.state;
  const to = input.to;
  assertMove(from, to, input.by);
  let codes: ServiceCodes | null = null;
  if (codesNeeded(subject, to)) {
    if (!facts.codes) throw new Error(`the move of ${subject.uuid} to ${to} needs its service codes reserved`);
    codes = { codigoServicio: subject.codigoServicio ?? facts.codes.codigoServicio, codigoSolicitud: subject.codigoSolicitud ?? facts.codes.codigoSolicitud };
  }
  const technicianId = input.assignment?.technicianId ?? subject.technicianId;
  const technician = input.reassign
    ? { replace: input.reassign.technicianId }
    : to === 'ASIGNADA' && technicianId !== null
      ? { hold: technicianId }
      : from !== null && ACTIVE_STATES.includes(from) && ENDED.includes(to)
        ? ({ release: true } as const)
        : null;
  const fecha = facts.at.toISOString();
  const codigoServicio = subject.codigoServicio ?? codes?.codigoServicio ?? null;
  const notices = stateNotices({ uuid: subject.uuid, motivo: subject.motivo, codigoServicio }, facts.generator, from, to, facts.novelties, fecha, input.detalle);
  const deliveries = [
    ...notices.map((n) => deliveryRow({ offer: subject.uuid, kind: n.kind, receiver: n.receiver.id, url: n.url, body: { ...n.body }, eventHeader: true })),
    ...(input.pushes ?? []).map((p) => deliveryRow({ offer: subject.uuid, kind: p.kind, receiver: p.receiverId, url: p.url, body: p.body, eventHeader: true })),
  ];
  const result: TransitionResult = { from, to, notificationIds: deliveries.map((d) => d.id) };
  return {
    uuid: subject.uuid,
    from,
    to,
    audit: {
      offer_uuid: subject.uuid,
      from_state: from,
      to_state: to,
      actor: auditActor(input.actor),
      at: fecha,
      tech_lat: input.techLat ?? null,
      tech_lng: input.techLng ?? null,
      detail: input.detail ?? null,
    },
    assignment: input.assignment ?? null,
    codes,
    technician,
    deliveries,
    announcement: from === null && input.by === 'oferta' ? null : { offer: { uuid: subject.uuid, generatorId: subject.generatorId }, result },
  };
}

function subjectOf(offer: Offer): MoveSubject {
  return {
    uuid: offer.uuid,
    state: offer.state,
    generatorId: offer.generator.id,
    motivo: offer.motivo ?? null,
    codigoServicio: offer.codigoServicio ?? null,
    codigoSolicitud: offer.codigoSolicitud ?? null,
    technicianId: offer.assignedTechnician?.id ?? null,
  };
}

/**
 * One move of a locked offer (lockOffer) through the unit of work, in the
 * caller's root transaction: its effects planned and applied on the entities,
 * flushed, and its announcement declared (enqueued and published once the
 * transaction commits). Throws `offer.move-refused` when the table does not
 * allow it; outside a root em.transactional it throws before changing anything.
 */
export async function transition(em: EntityManager, offer: Offer, input: MoveInput): Promise<TransitionResult> {
  requireCommitSteps(em);
  const from = offer.state;
  assertMove(from, input.to, input.by);
  const subject = subjectOf(offer);
  // The assignment first: the novelties read who won (plan.ts).
  if (input.assignment) assignEntity(em, offer, input.assignment);
  const codes = codesNeeded(subject, input.to) ? await freeServiceCodes(em, subject) : undefined;
  // D20: only a move that makes the service ASIGNADA (not a change of technician, ASIGNADA → ASIGNADA)
  const assigned = input.to === 'ASIGNADA' && from !== 'ASIGNADA' ? await assignedServicio(em, offer, codes) : null;
  const facts = await stateNoticeFacts(em, offer, from, input.to, assigned?.servicio ?? null);
  const effects = planMove(subject, input, { ...facts, codes, at: new Date() });
  offer.state = effects.to;
  if (effects.codes) {
    offer.codigoServicio = effects.codes.codigoServicio;
    offer.codigoSolicitud = effects.codes.codigoSolicitud;
  }
  if (input.reassign) offer.assignedTechnician = em.getReference(Technician, input.reassign.technicianId);
  await applyTechnician(em, offer.uuid, effects.technician);
  const a = effects.audit;
  em.create(OfferTransition, {
    offer,
    fromState: effects.from,
    toState: effects.to,
    actor: a.actor,
    at: new Date(a.at),
    techLat: a.tech_lat,
    techLng: a.tech_lng,
    detail: a.detail,
  });
  for (const d of effects.deliveries) em.create(WebhookDelivery, { ...d, offer, receiver: em.getReference(ApiUser, d.receiver) });
  await em.flush();
  if (effects.announcement) announceOnCommit(em, effects.announcement.offer, effects.announcement.result);
  // D20: the technician is told its service, after the state
  if (assigned?.technicianId != null) {
    const msg = serviceAssigned(assigned.technicianId, effects.to, assigned.servicio);
    onCommit(em, (rt) => afterCommit(rt, 'publish service.assigned', { uuid: offer.uuid }, () => rt.events.publish(msg.audience, msg.event, msg.data)));
  }
  return { from: effects.from, to: effects.to, notificationIds: effects.deliveries.map((d) => d.id) };
}

/** D20: the `servicio` of an offer becoming ASIGNADA (with the codes the move gives it) and its technician. */
async function assignedServicio(em: EntityManager, offer: Offer, codes: ServiceCodes | undefined): Promise<{ servicio: Servicio; technicianId: number | null }> {
  await em.populate(offer, ['serviceType', 'assignedTechnician']);
  const technician = offer.assignedTechnician ?? null;
  const s = servicio(offer, technician);
  return { servicio: { ...s, codigoServicio: offer.codigoServicio ?? codes?.codigoServicio ?? null }, technicianId: technician?.id ?? null };
}

/** A move's technician effect on one offer (D16, D20): the old one freed before the new one is held. */
async function applyTechnician(em: EntityManager, offerUuid: string, t: MoveEffects['technician']): Promise<void> {
  if (!t) return;
  if ('release' in t || 'replace' in t) await releaseTechnicianOfOffer(em, offerUuid);
  if ('hold' in t) await holdTechnicianForOffer(em, offerUuid, t.hold);
  if ('replace' in t) await holdTechnicianForOffer(em, offerUuid, t.replace);
}

function assignEntity(em: EntityManager, offer: Offer, a: Assignment): void {
  offer.assignedCentral = em.getReference(Central, a.centralId);
  offer.assignedTechnician = em.getReference(Technician, a.technicianId);
  offer.acceptedResponse = a.responseId;
  offer.ranking = a.ranking as Offer['ranking'];
}

/**
 * Many moves set-based, in the caller's root transaction: the offers, their
 * audit rows and their deliveries in one statement, the technicians
 * held and released in one each (only when a move holds or releases one), and
 * each move's announcement declared on the transaction, in their order.
 * Codes are written as given in the effects (reserved before planning).
 * `extraDeliveries` (a batch's 6.1 notifications, D5) go in the same
 * statement as the moves' own, first.
 */
export async function applyMoves(em: EntityManager, moves: readonly MoveEffects[], extraDeliveries: Deliveries = []): Promise<void> {
  requireCommitSteps(em);
  if (!moves.length) return;
  // a change of technician (D20) is one offer's move: `transition` applies it
  if (moves.some((m) => m.technician && 'replace' in m.technician)) throw new Error('a change of technician has no set-based form');
  const records: OfferMoveRecord[] = moves.map((m) => ({
    uuid: m.uuid,
    state: m.to,
    assign: m.assignment !== null,
    central: m.assignment?.centralId ?? null,
    technician: m.assignment?.technicianId ?? null,
    response: m.assignment?.responseId ?? null,
    ranking: m.assignment?.ranking ?? null,
    codigo_servicio: m.codes?.codigoServicio ?? null,
    codigo_solicitud: m.codes?.codigoSolicitud ?? null,
  }));
  // the offers' updated_at is their moves' time, as their audit rows'; their deliveries in the same statement
  await moveOfferRecords(em, new Date(moves[0].audit.at), records, moves.map((m) => m.audit), [...extraDeliveries, ...moves.flatMap((m) => m.deliveries)]);
  await applyFollowUps(em, moves, false);
}

/** The effects that follow the offers' rows, set-based: deliveries (unless already written with them), technicians, announcements. */
async function applyFollowUps(em: EntityManager, moves: readonly MoveEffects[], withDeliveries = true): Promise<void> {
  if (withDeliveries) await insertDeliveries(em, moves.flatMap((m) => m.deliveries));
  const holds = moves.flatMap((m) => (m.technician && 'hold' in m.technician ? [{ offerUuid: m.uuid, technicianId: m.technician.hold }] : []));
  if (holds.length) await holdTechniciansForOffers(em, holds);
  const releases = moves.flatMap((m) => (m.technician && 'release' in m.technician ? [m.uuid] : []));
  if (releases.length) await releaseTechniciansOfOffers(em, releases);
  for (const m of moves) if (m.announcement) announceOnCommit(em, m.announcement.offer, m.announcement.result);
}

/** How an offer comes to exist (D1) and who made it (`api-user:<username>`). */
export interface Creation {
  by: CreationTrigger;
  actor: string;
}

export type InsertResult = 'inserted' | 'uuid-exists' | 'unknown-type';

/** An offer to create: its row but for what its move decides (state, audit actor), and its creation. */
export interface CreationWrite {
  record: Omit<OfferInsertRecord, 'state' | 'actor'>;
  creation: Creation;
  createdAt: Date;
  /** deliveries planned once it is inserted (they may read it), with its move */
  pushes?: (em: EntityManager) => Promise<Push[]>;
}

function creationSubject(w: CreationWrite): MoveSubject {
  return {
    uuid: w.record.uuid,
    state: null,
    generatorId: w.record.generator_id,
    motivo: null,
    codigoServicio: w.record.codigo_servicio,
    codigoSolicitud: w.record.codigo_solicitud,
    technicianId: w.record.assigned_technician_id,
  };
}

/**
 * Creations ((none) → ABIERTA or ASIGNADA, D1) set-based: each offer inserted
 * in the state its move reaches with its audit row, all in one statement; then
 * the moves' other effects for those inserted (a direct assignment's push and
 * technician, its announcement, declared on the caller's root transaction).
 * POST /oferta's creations have none: one statement, no transaction needed.
 * The results in the order of `writes`.
 */
export async function createOffers(em: EntityManager, writes: readonly CreationWrite[], defaultDescription: string): Promise<InsertResult[]> {
  const plan = (w: CreationWrite, pushes: readonly Push[] = []) =>
    planMove(creationSubject(w), { to: creationState(w.creation.by), by: w.creation.by, actor: w.creation.actor, pushes }, { generator: null, novelties: [], at: w.createdAt });
  const planned = writes.map((w) => plan(w));
  if (planned.some((m) => m.announcement !== null)) requireCommitSteps(em);
  const records = writes.map((w, i): OfferInsertRecord => ({ ...w.record, state: planned[i].to, actor: planned[i].audit.actor }));
  const written = await insertOfferRecords(em, records, defaultDescription);
  const moves: MoveEffects[] = [];
  for (let i = 0; i < writes.length; i++) {
    if (!written.has(i)) continue;
    const w = writes[i];
    moves.push(w.pushes ? plan(w, await w.pushes(em)) : planned[i]);
  }
  await applyFollowUps(em, moves);
  if (written.size === writes.length) return writes.map(() => 'inserted');
  const known = await knownServiceTypeIds(em, writes.map((w) => w.record.service_type_id));
  return writes.map((w, i) => (written.has(i) ? 'inserted' : known.has(w.record.service_type_id) ? 'uuid-exists' : 'unknown-type'));
}
