/**
 * PUT /aceptacion (spec 2.5, 4.3, D4): a central accepts an offer, over HTTP
 * with its key or over the socket as a technician (`offer.respond`, D10).
 * Everything of the operation is here: its body's schema, the wording of a
 * bad body, of its answers and of its domain errors, the presenter and the
 * handler; the rules are the domain's (src/domain/offers/acceptance/acceptance.ts).
 */
import type { ErrorObject } from 'ajv';
import { acceptOffer as accept, type AcceptanceOutcome } from '../../domain/offers/acceptance/acceptance.js';
import { UUID_PATTERN } from '../../domain/offers/create/input.js';
import type { OfferState } from '../../domain/offers/lifecycle/states.js';
import { MAX_COORDINATE_LENGTH, NUMERIC_OR_EMPTY, rangeText, type Axis } from '../../geo/coordinates.js';
import { relayableReply } from '../../webhooks/relay.js';
import { DataAnswer, ref } from '../document/components.js';
import { data } from '../document/responses.js';
import { API, Answer, apiUserOf, named, operation } from '../operation.js';

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
  notARecipient: 'LA OFERTA NO FUE ENVIADA A ESTA CENTRAL',
  technicianBusy: 'EL TÉCNICO TIENE OTRO SERVICIO EN CURSO',
  implausibleArrival: 'TIEMPO DE LLEGADA NO PLAUSIBLE',
  generatorNoAnswer: 'EL GENERADOR NO CONFIRMÓ LA ASIGNACIÓN DEL SERVICIO',
  failure: 'Error al aceptar la oferta',
  notAnObject: 'EL CUERPO DE LA SOLICITUD DEBE SER UN OBJETO JSON',
  required: (f: string) => `EL CAMPO '${f}' ES REQUERIDO`,
  badId: "EL CAMPO 'id' DEBE SER EL UUID DE LA OFERTA",
  badText: (f: string) => `EL CAMPO '${f}' DEBE SER UN TEXTO NO VACÍO DE HASTA 255 CARACTERES`,
  badTime: "EL CAMPO 'tiempoLlegadaSitio' DEBE SER UN NÚMERO DE MINUTOS ENTRE 0 Y 1440",
  badCoordinate: (f: string) => `EL CAMPO '${f}' DEBE SER UNA COORDENADA NUMÉRICA`,
  outOfRange: (f: string, axis: Axis) => `EL CAMPO '${f}' DEBE ESTAR ENTRE ${rangeText(axis)}`,
} as const;

/** The longest arrival estimate taken, over HTTP and the socket alike: one day, in minutes (D4). */
export const MAX_ARRIVAL_MINUTES = 1440;

const dni = { type: ['string', 'integer'], minLength: 1, maxLength: 255, pattern: '\\S' } as const;
const techCoord = { type: ['string', 'number', 'null'], maxLength: MAX_COORDINATE_LENGTH, pattern: NUMERIC_OR_EMPTY } as const;

/**
 * The body (spec 2.5). Over the socket, `dniPrestador` and `dniTecnico` come
 * from the technician's authentication and every other field from the frame
 * (document/socket.ts derives the frame from this schema).
 */
export const AcceptanceInput = named('AcceptanceInput', {
  type: 'object',
  required: ['id', 'dniPrestador', 'dniTecnico'],
  properties: {
    id: { type: 'string', maxLength: 36, pattern: UUID_PATTERN },
    dniPrestador: dni,
    dniTecnico: dni,
    tiempoLlegadaSitio: { type: ['number', 'null'], minimum: 0, maximum: MAX_ARRIVAL_MINUTES },
    latitudTecnico: techCoord,
    longitudTecnico: techCoord,
  },
} as const);

/** The message of the first schema failure of a body (D4.1). */
export function acceptanceMessage(e: ErrorObject): string {
  if (e.keyword === 'required') return ACCEPTANCE_MESSAGES.required((e.params as { missingProperty: string }).missingProperty);
  const field = e.instancePath.slice(1);
  if (field === '') return ACCEPTANCE_MESSAGES.notAnObject;
  if (field === 'id') return ACCEPTANCE_MESSAGES.badId;
  if (field === 'tiempoLlegadaSitio') return ACCEPTANCE_MESSAGES.badTime;
  if (field === 'latitudTecnico' || field === 'longitudTecnico') return ACCEPTANCE_MESSAGES.badCoordinate(field);
  return ACCEPTANCE_MESSAGES.badText(field);
}

/**
 * The generator's reply to a rejected forward, as the 400 body (D4c): JSON
 * objects as they are, anything else wrapped; bounded and cleaned (webhooks/relay.ts).
 */
function generatorReplyBody(replyBody: string | null): Record<string, unknown> {
  if (!replyBody) return { status: false, data: ACCEPTANCE_MESSAGES.generatorNoAnswer };
  const relayed = relayableReply(replyBody);
  return relayed.kind === 'object' ? relayed.value : { status: false, data: relayed.value };
}

/** The answer `{status, data}`, or the generator's own reply to a refused late acceptance. */
export function presentAcceptance(outcome: AcceptanceOutcome): Answer {
  switch (outcome.kind) {
    case 'recorded':
      return new Answer(200, { status: true, data: ACCEPTANCE_MESSAGES.recorded });
    case 'accepted':
      return new Answer(200, { status: true, data: outcome.paymentPending ? ACCEPTANCE_MESSAGES.paymentPending : ACCEPTANCE_MESSAGES.accepted });
    case 'forward-rejected':
      return new Answer(400, generatorReplyBody(outcome.replyBody));
  }
}

const M = ACCEPTANCE_MESSAGES;

export const acceptOffer = operation({
  method: 'put',
  path: `${API}/aceptacion`,
  operationId: 'acceptOffer',
  summary: 'A central accepts an offer (spec 4.3, D4)',
  tag: 'Ofertas',
  auth: 'apiKey',
  envelope: 'data',
  input: { schema: AcceptanceInput, from: 'json' },
  invalid: { message: acceptanceMessage },
  failure: M.failure,
  wording: { 'offer.not-found': { status: 404, message: M.offerNotFound } },
  responses: {
    200: data('Response recorded, or assignment confirmed', { accepted: M.accepted, paymentPending: M.paymentPending, recorded: M.recorded }, true),
    400: {
      description:
        'Invalid data, offer already accepted or closed, an implausible response (D20: not sent to this central, technician busy, arrival time below the straight-line distance at 120 km/h), or the generator rejected a late acceptance (its reply as it came)',
      schema: { anyOf: [ref(DataAnswer), { type: 'object' }] },
      examples: {
        alreadyAccepted: { status: false, data: M.alreadyAccepted },
        notARecipient: { status: false, data: M.notARecipient },
        technicianBusy: { status: false, data: M.technicianBusy },
        implausibleArrival: { status: false, data: M.implausibleArrival },
      },
    },
    403: data('The key does not belong to the central named', { notYourCentral: M.notYourCentral }),
    404: data('Offer, technician or generator profile not found', { technician: M.technicianNotFound, generator: M.generatorApiNotFound, offer: M.offerNotFound }),
    500: data('Failure', { failure: M.failure }),
  },
  handle: async (rt, caller, input) => presentAcceptance(await accept(rt, apiUserOf(caller), input)),
});
