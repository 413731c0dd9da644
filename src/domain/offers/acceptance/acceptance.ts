/**
 * PUT /aceptacion (spec 2.5, 4.3, decisions D4): a central's answer to an
 * offer. The checks run in D4's order; then, on the offer locked FOR UPDATE,
 * the state decides: ABIERTA records the response (or, for the generator's
 * own central, assigns at once), SIN_RESPUESTA takes a late acceptance (first
 * come) and forwards it to the generator synchronously. Every decision is
 * made under the lock and commits its new state before anything is sent, so
 * any number of simultaneous acceptances and the evaluation produce one
 * winner. Used by the HTTP route and by the WebSocket server.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FromSchema } from 'json-schema-to-ts';
import { Central, Offer, OfferResponse, Technician, type ApiUser } from '../../../db/entities/index.js';
import { computeResponseFigures, type ResponseFigures } from '../../../geo/figures.js';
import { HttpError, acceptanceError } from '../../../http/errors.js';
import { validateBody, type ErrorObject } from '../../../http/validation.js';
import type { Runtime } from '../../../main/runtime.js';
import { profileEndpoint } from '../../../webhooks/deliveries.js';
import { dispatchAcceptance } from '../selection/acceptanceNotification.js';
import { announceTransition } from '../lifecycle/announce.js';
import { NUMERIC_OR_EMPTY, coordinate, point, rangeText, type Axis } from '../../../geo/coordinates.js';
import { publishOfferEvent } from '../lifecycle/events.js';
import { UUID_PATTERN } from '../create/input.js';
import { responseView } from './responses.js';
import { announceSelection, selectResponse, type Selection } from '../selection/selection.js';
import { lockOffer } from '../lifecycle/stateMachine.js';
import type { OfferState } from '../lifecycle/states.js';

export const ACCEPTANCE_MESSAGES = {
  recorded: 'RESPUESTA ACEPTADA, ESPERA POR FAVOR A QUE SE CONFIRME LA ASIGNACIÓN DEL SERVICIO',
  accepted: 'Oferta aceptada',
  paymentPending: 'Oferta aceptada, pero el cliente aún no ha confirmado el método de pago',
  alreadyAccepted: 'Oferta ya aceptada',
  offerNotFound: 'Oferta no encontrada',
  technicianNotFound: 'NO SE ENCONTRÓ EL TÉCNICO',
  generatorApiNotFound: 'API GENERADOR NO ENCONTRADO',
  notYourCentral: 'LA CLAVE DE ACCESO NO CORRESPONDE AL PRESTADOR',
  closed: (state: OfferState) => `LA OFERTA NO PUEDE SER ACEPTADA: SU ESTADO ES ${state}`,
  generatorNoAnswer: 'EL GENERADOR NO CONFIRMÓ LA ASIGNACIÓN DEL SERVICIO',
  failure: 'Error al aceptar la oferta',
  notAnObject: 'EL CUERPO DE LA SOLICITUD DEBE SER UN OBJETO JSON',
  required: (f: string) => `EL CAMPO '${f}' ES REQUERIDO`,
  badId: "EL CAMPO 'id' DEBE SER EL UUID DE LA OFERTA",
  badText: (f: string) => `EL CAMPO '${f}' DEBE SER UN TEXTO NO VACÍO DE HASTA 255 CARACTERES`,
  badTime: "EL CAMPO 'tiempoLlegadaSitio' DEBE SER UN NÚMERO MAYOR O IGUAL A 0",
  badCoordinate: (f: string) => `EL CAMPO '${f}' DEBE SER UNA COORDENADA NUMÉRICA`,
  outOfRange: (f: string, axis: Axis) => `EL CAMPO '${f}' DEBE ESTAR ENTRE ${rangeText(axis)}`,
} as const;

const dni = { type: ['string', 'integer'], minLength: 1, maxLength: 255, pattern: '\\S' } as const;
const techCoord = { type: ['string', 'number', 'null'], pattern: NUMERIC_OR_EMPTY } as const;

export const acceptanceSchema = {
  type: 'object',
  required: ['id', 'dniPrestador', 'dniTecnico'],
  properties: {
    id: { type: 'string', pattern: UUID_PATTERN },
    dniPrestador: dni,
    dniTecnico: dni,
    tiempoLlegadaSitio: { type: ['number', 'null'], minimum: 0, maximum: 100000 },
    latitudTecnico: techCoord,
    longitudTecnico: techCoord,
  },
} as const;

type AcceptanceInput = FromSchema<typeof acceptanceSchema>;

function acceptanceMessage(e: ErrorObject): string {
  if (e.keyword === 'required') return ACCEPTANCE_MESSAGES.required((e.params as { missingProperty: string }).missingProperty);
  const field = e.instancePath.slice(1);
  if (field === '') return ACCEPTANCE_MESSAGES.notAnObject;
  if (field === 'id') return ACCEPTANCE_MESSAGES.badId;
  if (field === 'tiempoLlegadaSitio') return ACCEPTANCE_MESSAGES.badTime;
  if (field === 'latitudTecnico' || field === 'longitudTecnico') return ACCEPTANCE_MESSAGES.badCoordinate(field);
  return ACCEPTANCE_MESSAGES.badText(field);
}

export interface AcceptanceReply {
  status: number;
  body: Record<string, unknown>;
}

const reply = (status: number, data: unknown): AcceptanceReply => ({ status, body: { status: status === 200, data } });

/** D4.1: the body, in the acceptance envelope. */
function parseAcceptance(input: unknown) {
  let body: AcceptanceInput;
  try {
    body = validateBody<typeof acceptanceSchema>(acceptanceSchema, input, acceptanceMessage);
  } catch (err) {
    if (err instanceof HttpError) throw acceptanceError(err.status, err.body.msg);
    throw err;
  }
  const axis = (value: AcceptanceInput['latitudTecnico'], field: string, a: Axis) => {
    const c = coordinate(value, a);
    if (c === 'out-of-range') throw acceptanceError(400, ACCEPTANCE_MESSAGES.outOfRange(field, a));
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

type Parsed = ReturnType<typeof parseAcceptance>;

interface Parties {
  offer: Offer;
  generator: ApiUser;
  central: Central;
  technician: Technician;
}

/** D4.2–5, reads only. */
async function findParties(em: EntityManager, caller: ApiUser, a: Parsed): Promise<Parties> {
  const central = await em.findOne(Central, { nit: a.dniPrestador, apiUser: caller.id });
  if (!central) throw acceptanceError(403, ACCEPTANCE_MESSAGES.notYourCentral);
  const offer = await em.findOne(Offer, { uuid: a.offerUuid }, { populate: ['generator'] });
  if (!offer) throw acceptanceError(404, ACCEPTANCE_MESSAGES.offerNotFound);
  const technician = await em.findOne(Technician, { dni: a.dniTecnico, central: central.id });
  if (!technician) throw acceptanceError(404, ACCEPTANCE_MESSAGES.technicianNotFound);
  if (!profileEndpoint(offer.generator, 'respuesta')) throw acceptanceError(404, ACCEPTANCE_MESSAGES.generatorApiNotFound);
  return { offer, generator: offer.generator, central, technician };
}

/** D4.6: states that take no acceptance. */
function refusal(state: OfferState): HttpError | null {
  switch (state) {
    case 'ABIERTA':
    case 'SIN_RESPUESTA':
      return null;
    case 'ACEPTADA':
    case 'ASIGNADA':
    case 'EN_CAMINO':
    case 'EN_SITIO':
      return acceptanceError(400, ACCEPTANCE_MESSAGES.alreadyAccepted);
    default:
      return acceptanceError(400, ACCEPTANCE_MESSAGES.closed(state));
  }
}

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
  if (!offer) throw acceptanceError(404, ACCEPTANCE_MESSAGES.offerNotFound);
  const refused = refusal(offer.state);
  if (refused) throw refused;
  const response = await upsertResponse(em, { ...p, offer }, figures);
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

/** The generator's reply to a rejected forward, as the 400 body (D4c): JSON objects as they are, anything else wrapped. */
function generatorReplyBody(replyBody: string | null): Record<string, unknown> {
  if (!replyBody) return { status: false, data: ACCEPTANCE_MESSAGES.generatorNoAnswer };
  try {
    const parsed: unknown = JSON.parse(replyBody);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    return { status: false, data: parsed };
  } catch {
    return { status: false, data: replyBody };
  }
}

/** D4c after its commit: the forward to the generator decides ACEPTADA or INACTIVA. */
async function forwardLateAcceptance(rt: Runtime, p: Parties, selection: Selection): Promise<AcceptanceReply> {
  await announceTransition(rt, selection.offer, selection.result);
  const outcome = selection.deliveryId ? await dispatchAcceptance(rt, selection.deliveryId) : null;
  if (!outcome?.ok) return { status: 400, body: generatorReplyBody(outcome?.replyBody ?? null) };
  await publishOfferEvent(rt, selection.offer, 'offer.accepted', { accepted: selection.accepted });
  return reply(200, p.generator.requiresPaymentConfirmation ? ACCEPTANCE_MESSAGES.paymentPending : ACCEPTANCE_MESSAGES.accepted);
}

export async function respondToOffer(rt: Runtime, caller: ApiUser, input: unknown): Promise<AcceptanceReply> {
  try {
    const a = parseAcceptance(input);
    const em = rt.orm.em.fork();
    const parties = await findParties(em, caller, a);
    const early = refusal(parties.offer.state);
    if (early) throw early;
    const figures = await computeResponseFigures(
      em,
      { offerUuid: parties.offer.uuid, technicianId: parties.technician.id, lat: a.position?.lat, lng: a.position?.lng, minutes: a.minutes },
      rt.config.averageSpeedKmh,
    );
    const decision = await em.transactional((tx) => decide(rt, tx, parties, figures));
    const ref = { uuid: parties.offer.uuid, generatorId: parties.generator.id };
    await publishOfferEvent(rt, ref, 'offer.response', { response: responseView(decision.response) });
    if (decision.kind === 'late') return await forwardLateAcceptance(rt, parties, decision.selection);
    if (decision.kind === 'own') await announceSelection(rt, decision.selection, { dispatch: true, closed: 'assigned-own' });
    return reply(200, ACCEPTANCE_MESSAGES.recorded);
  } catch (err) {
    if (err instanceof HttpError) return { status: err.status, body: err.body };
    rt.log.error({ err }, 'acceptance failed');
    return reply(500, ACCEPTANCE_MESSAGES.failure);
  }
}
