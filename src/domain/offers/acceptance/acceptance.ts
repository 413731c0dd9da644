/**
 * PUT /aceptacion (spec 2.5, 4.3, decisions D4): a central's answer to an
 * offer. The checks run in D4's order (checks.ts, one pure function that
 * both paths below call: the quick one and the transactional one); then, on
 * the offer locked FOR UPDATE,
 * the state decides: ABIERTA records the response (or, for the generator's
 * own central, assigns at once), SIN_RESPUESTA takes a late acceptance (first
 * come) and forwards it to the generator synchronously. Every decision is
 * made under the lock and commits its new state before anything is sent, so
 * any number of simultaneous acceptances and the evaluation produce one
 * winner. Used by the HTTP route and by the WebSocket server: it takes the
 * validated body, returns an outcome and raises DomainErrors; the operation
 * shapes both (src/api/offers/acceptOffer.ts, src/api/errorTable.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { OfferResponse, type ApiUser, type Central, type Offer, type Technician } from '../../../db/entities/index.js';
import { responseFigures, validCoords, type ResponseFigures } from '../../../geo/figures.js';
import { distanceFromOrigin } from '../../../db/stores/offers.js';
import { isRecipient } from '../../../db/stores/recipients.js';
import { DomainError } from '../../errors.js';
import type { Runtime } from '../../ports.js';
import { acceptanceParties } from '../../../db/stores/parties.js';
import { readAcceptanceFacts, recordOpenResponse, type AcceptanceFactsRow } from '../../../db/stores/responses.js';
import { checkAcceptance, refusal, type AcceptanceCheckFacts } from './checks.js';
import { dispatchAcceptance } from '../selection/acceptanceNotification.js';
import { coordinate, point, type Axis } from '../../../geo/coordinates.js';
import { onCommit } from '../lifecycle/announce.js';
import { publishOfferEvent } from '../lifecycle/events.js';
import { responseView } from './responses.js';
import { announceSelection, selectionEvents, selectResponse, type Selection } from '../selection/selection.js';
import { lockOffer } from '../lifecycle/stateMachine.js';
import type { OfferState } from '../lifecycle/states.js';

/** PUT /aceptacion's validated body (its schema and wording: src/api/offers/acceptOffer.ts). */
export interface AcceptanceInput {
  id: string;
  dniPrestador: string | number;
  dniTecnico: string | number;
  tiempoLlegadaSitio?: number | null;
  latitudTecnico?: string | number | null;
  longitudTecnico?: string | number | null;
  /** unknown fields are ignored */
  [field: string]: unknown;
}

/** What an acceptance came to; the operation shapes it (src/api/offers/acceptOffer.ts). */
export type AcceptanceOutcome =
  /** recorded on an ABIERTA offer, or won at once by the generator's own central */
  | { kind: 'recorded' }
  /** a late acceptance the generator confirmed (D4c) */
  | { kind: 'accepted'; paymentPending: boolean }
  /** a late acceptance the generator refused or did not answer: its reply, as it came */
  | { kind: 'forward-rejected'; replyBody: string | null };

/** D4.1 after the schema: the values, with the coordinates' ranges checked. */
export function parseAcceptance(body: AcceptanceInput) {
  const axis = (value: AcceptanceInput['latitudTecnico'], field: string, a: Axis) => {
    const c = coordinate(value, a);
    if (c === 'out-of-range') throw new DomainError('acceptance.coordinate-out-of-range', { field, axis: a });
    return c;
  };
  return {
    offerUuid: body.id.toLowerCase(),
    dniPrestador: String(body.dniPrestador).trim(),
    dniTecnico: String(body.dniTecnico).trim(),
    minutes: body.tiempoLlegadaSitio ?? null,
    position: point(axis(body.latitudTecnico, 'latitudTecnico', 'lat'), axis(body.longitudTecnico, 'longitudTecnico', 'lng')),
  };
}

export type ParsedAcceptance = ReturnType<typeof parseAcceptance>;
type Parsed = ParsedAcceptance;

interface Parties {
  offer: Offer;
  generator: ApiUser;
  central: Central;
  technician: Technician;
}

/** The transactional path's facts (D4.2–5), read through the entities: the checks' facts and the parties themselves. */
export async function transactionalFacts(
  em: EntityManager,
  caller: ApiUser,
  a: Parsed,
): Promise<{ facts: AcceptanceCheckFacts; parties: Parties | null; distance: DistanceRow | null }> {
  const { central, offer, technician } = await acceptanceParties(em, { nit: a.dniPrestador, callerId: caller.id, offerUuid: a.offerUuid, dni: a.dniTecnico });
  const recipient = central && offer ? await isRecipient(em, offer.uuid, central.id) : false;
  const given = a.position !== null && validCoords(a.position.lat, a.position.lng);
  const distance = offer && technician ? await distanceFromOrigin(em, { offerUuid: offer.uuid, technicianId: technician.id, point: given ? a.position : null }) : null;
  const facts: AcceptanceCheckFacts = {
    central,
    offer,
    generator: offer?.generator ?? null,
    technician: technician && { id: technician.id, busyOfferUuid: technician.busyOfferUuid ?? null },
    recipient,
    distanceM: distance?.distance_m == null ? null : Number(distance.distance_m),
  };
  return { facts, parties: central && offer && technician ? { offer, generator: offer.generator, central, technician } : null, distance };
}

type DistanceRow = NonNullable<Awaited<ReturnType<typeof distanceFromOrigin>>>;

type Decision =
  | { kind: 'recorded'; response: OfferResponse }
  | { kind: 'own'; response: OfferResponse; selection: Selection }
  | { kind: 'late'; response: OfferResponse; selection: Selection };

/** A central answering twice replaces its own response. */
async function upsertResponse(em: EntityManager, p: Parties, figures: ResponseFigures): Promise<OfferResponse> {
  const values = { technician: p.technician, rate: p.technician.rate, ...figures };
  const existing = await em.findOne(OfferResponse, { offer: p.offer.uuid, central: p.central.id });
  const response = existing ? em.assign(existing, values) : em.create(OfferResponse, { offer: p.offer, central: p.central, ...values });
  await em.flush();
  return response;
}

/** Under the offer's lock: the state decides (D4 a, b, c). */
async function decide(rt: Runtime, em: EntityManager, p: Parties, figures: ResponseFigures): Promise<Decision> {
  const offer = await lockOffer(em, p.offer.uuid);
  if (!offer) throw new DomainError('offer.not-found', { uuid: p.offer.uuid });
  const refused = refusal(offer.state);
  if (refused) throw refused;
  const response = await upsertResponse(em, { ...p, offer }, figures);
  // Declared before any move, so the live events keep their order: the response, then the state.
  const view = responseView(response);
  onCommit(em, (rt) => publishOfferEvent(rt, { uuid: offer.uuid, generatorId: p.generator.id }, 'offer.response', { response: view }));
  const actor = `central:${p.central.nit}`;
  if (offer.state === 'SIN_RESPUESTA') {
    const selection = await selectResponse(em, rt.config, offer, response, [response], { to: 'ACEPTADA', by: 'aceptacion-tardia', actor });
    return { kind: 'late', response, selection };
  }
  if (p.generator.nit !== null && p.central.nit === p.generator.nit) {
    const selection = await selectResponse(em, rt.config, offer, response, [response], { to: 'ASIGNADA', by: 'aceptacion-propia', actor });
    return { kind: 'own', response, selection };
  }
  return { kind: 'recorded', response };
}

/** D4c after its commit: the forward to the generator decides ACEPTADA or INACTIVA. */
async function forwardLateAcceptance(rt: Runtime, p: Parties, selection: Selection): Promise<AcceptanceOutcome> {
  const outcome = selection.deliveryId ? await dispatchAcceptance(rt, selection.deliveryId) : null;
  if (!outcome?.ok) return { kind: 'forward-rejected', replyBody: outcome?.replyBody ?? null };
  // the generator confirmed the selection: `offer.accepted`, with its technicians' side (D20)
  for (const e of selectionEvents(selection, null)) await publishOfferEvent(rt, e.offer, e.event, e.data, e.selection);
  return { kind: 'accepted', paymentPending: p.generator.requiresPaymentConfirmation };
}

/** The quick path's facts, read in one statement (src/db/stores/responses.ts), with the technician's distance. */
export async function quickFacts(em: EntityManager, caller: ApiUser, a: Parsed): Promise<{ facts: AcceptanceCheckFacts; row: AcceptanceFactsRow }> {
  const given = a.position !== null && validCoords(a.position.lat, a.position.lng);
  const row = await readAcceptanceFacts(em, {
    nit: a.dniPrestador,
    callerId: caller.id,
    offerUuid: a.offerUuid,
    dni: a.dniTecnico,
    point: given ? a.position : null,
  });
  const facts: AcceptanceCheckFacts = {
    central: row.central_id === null ? null : { id: row.central_id, nit: row.central_nit! },
    offer: row.offer_state === null ? null : { state: row.offer_state as OfferState },
    generator: row.generator_id === null ? null : { id: row.generator_id, nit: row.generator_nit, urlApi: row.url_api, apiEndpoint: row.api_endpoint ?? {} },
    technician: row.technician_id === null ? null : { id: row.technician_id, busyOfferUuid: row.technician_busy },
    recipient: row.recipient,
    distanceM: row.distance_m == null ? null : Number(row.distance_m),
  };
  return { facts, row };
}

/**
 * The common path (issue 12 item 5): a response to an offer still ABIERTA from a central that is not the
 * generator's own: two round trips to PostgreSQL (the facts, then the locked upsert). Anything else (a late
 * acceptance, the generator's own central, a state that changed meanwhile to SIN_RESPUESTA) takes the transactional
 * path below; null says so.
 */
export async function recordQuickly(rt: Runtime, em: EntityManager, caller: ApiUser, a: Parsed): Promise<AcceptanceOutcome | null> {
  const { facts, row: f } = await quickFacts(em, caller, a);
  const verdict = checkAcceptance(a, facts);
  if (!verdict.ok) throw verdict.error;
  if (verdict.route !== 'record') return null;
  const figures = responseFigures(f, a.minutes, f.technician_id!, rt.config.averageSpeedKmh);
  const r = await recordOpenResponse(em, {
    offerUuid: a.offerUuid,
    centralId: facts.central!.id,
    technicianId: f.technician_id!,
    ...figures,
    rate: f.technician_rate,
  });
  if (r.response_id === null) {
    if (r.state === 'SIN_RESPUESTA') return null; // the window closed meanwhile: a late acceptance
    const state = r.state as OfferState;
    throw refusal(state) ?? new DomainError('acceptance.closed', { state });
  }
  const view = responseView({
    distanceKm: figures.distanceKm,
    techLat: figures.techLat,
    techLng: figures.techLng,
    timeMin: figures.timeMin,
    rate: f.technician_rate ?? 0,
    technician: { names: f.technician_names ?? '' },
  });
  await publishOfferEvent(rt, { uuid: a.offerUuid, generatorId: f.generator_id! }, 'offer.response', { response: view });
  return { kind: 'recorded' };
}

/**
 * The transactional path: the facts read through the entities and checked as the quick path checks them, then,
 * on the offer locked FOR UPDATE, the state decides (D4 a, b, c).
 */
export async function acceptInTransaction(rt: Runtime, em: EntityManager, caller: ApiUser, a: Parsed): Promise<AcceptanceOutcome> {
  const { facts, parties, distance } = await transactionalFacts(em, caller, a);
  const verdict = checkAcceptance(a, facts);
  if (!verdict.ok) throw verdict.error;
  const p = parties!;
  // the distance read with the facts (D20) gives D2's figures: one read of the technician's point
  const figures = responseFigures(distance!, a.minutes, p.technician.id, rt.config.averageSpeedKmh);
  const decision = await em.transactional((tx) => decide(rt, tx, p, figures));
  if (decision.kind === 'late') return forwardLateAcceptance(rt, p, decision.selection);
  if (decision.kind === 'own') await announceSelection(rt, decision.selection, { dispatch: true, closed: 'assigned-own' });
  return { kind: 'recorded' };
}

/** PUT /aceptacion and the technician's `offer.respond`: a validated body, the caller's answer. */
export async function acceptOffer(rt: Runtime, caller: ApiUser, input: AcceptanceInput): Promise<AcceptanceOutcome> {
  const a = parseAcceptance(input);
  const em = rt.orm.em.fork();
  return (await recordQuickly(rt, em, caller, a)) ?? acceptInTransaction(rt, em, caller, a);
}
