/**
 * The one table from a domain error's code to its answer (issue 10, STYLE 9):
 * the spec's status, its message (texts kept exactly, from the use case's
 * message table) and any extra body fields. The envelope is the route's
 * (`ctx.state.envelope`, from its declaration in openapi/operations.ts); the socket layer answers
 * with the same table (src/realtime/actions.ts).
 */
import { DomainError, type DomainErrorCode, type DomainErrorFacts, type RefusedOperation } from '../domain/errors.js';
import { ACCEPTANCE_MESSAGES } from '../domain/offers/acceptance/acceptance.js';
import { RESPONSES_MESSAGES } from '../domain/offers/acceptance/responses.js';
import { OFFER_MESSAGES } from '../domain/offers/create/input.js';
import { OFFER_NOT_FOUND } from '../domain/offers/lifecycle/ownership.js';
import { ACTIVE_STATES, type OfferState } from '../domain/offers/lifecycle/states.js';
import { DIRECT_MESSAGES } from '../domain/offers/operations/directAssignment.js';
import { FINALIZE_MESSAGES } from '../domain/offers/operations/finalize.js';
import { PROGRESS_MESSAGES } from '../domain/offers/operations/progress.js';
import { STOP_MESSAGES } from '../domain/offers/operations/stops.js';
import { HISTORY_MESSAGES } from '../domain/history/history.js';
import { UNKNOWN_POSITION_MESSAGE } from '../geo/figures.js';
import { POSITION_MESSAGES } from '../geo/positions.js';
import { GEOCODER_UNAVAILABLE } from '../geocoding/geocoder.js';
import { TRACKING_MESSAGES } from '../domain/tracking/messages.js';
import { DELIVERY_MESSAGES } from '../domain/deliveries/resend.js';
import { HttpError, RequestError, envelopeBody, type Envelope } from './errors.js';

interface Answer<F> {
  status: number;
  message: (facts: F) => string;
  /** body fields beside the message (controller and key envelopes) */
  extra?: (facts: F) => Record<string, unknown>;
  /** response headers (Retry-After of a 429) */
  headers?: (facts: F) => Record<string, string>;
}

type ErrorTable = { [C in DomainErrorCode]: Answer<DomainErrorFacts[C]> };

const ENDED_AFTER_ASSIGNMENT: readonly OfferState[] = ['FINALIZADA', 'CANCELADA'];

/** The spec's wording of a refused move (D1, D6, D11, spec 4.4, 4.8), naming the current state. */
function refusedMoveMessage({ state, operation, to }: { state: OfferState; operation: RefusedOperation; to?: OfferState }): string {
  switch (operation) {
    case 'asignacion':
      return `NO ES POSIBLE CONFIRMAR LA ASIGNACIÓN: EL SERVICIO ESTÁ EN ESTADO ${state}`;
    case 'no-asignacion':
      return ACTIVE_STATES.includes(state)
        ? `EL SERVICIO YA FUE ASIGNADO (ESTADO ${state}); PARA RETIRARLO SOLICITE LA CANCELACIÓN`
        : `NO ES POSIBLE REGISTRAR LA NO ASIGNACIÓN: EL SERVICIO ESTÁ EN ESTADO ${state}`;
    case 'cancelacion':
      return ENDED_AFTER_ASSIGNMENT.includes(state)
        ? `EL SERVICIO YA SE ENCUENTRA EN ESTADO ${state}, POR LO TANTO NO ES POSIBLE PROCESAR LA CANCELACIÓN`
        : `LA OFERTA AÚN NO HA SIDO ASIGNADA, POR LO TANTO NO ES POSIBLE PROCESAR LA CANCELACIÓN (ESTADO ${state})`;
    case 'finalize':
      return `El servicio no está activo (estado ${state}), no es posible finalizarlo`;
    case 'add-address':
      return `NO ES POSIBLE AGREGAR DIRECCIONES: EL SERVICIO ESTÁ EN ESTADO ${state}`;
    case 'progreso':
      return `NO ES POSIBLE CAMBIAR EL ESTADO A ${to ?? state}: EL SERVICIO ESTÁ EN ESTADO ${state}`;
    default:
      return `LA OPERACIÓN NO ES PERMITIDA: EL SERVICIO ESTÁ EN ESTADO ${state}`;
  }
}

export const ERROR_TABLE: ErrorTable = {
  'offer.not-found': { status: 404, message: () => OFFER_NOT_FOUND },
  'offer.move-refused': { status: 403, message: refusedMoveMessage, extra: ({ state }) => ({ data: { estado: state } }) },
  'offer.uuid-exists': { status: 400, message: () => OFFER_MESSAGES.alreadyOffered },
  'offer.type-unknown': { status: 400, message: ({ serviceTypeId }) => OFFER_MESSAGES.typeUnknown(serviceTypeId) },
  'offer.origin-missing': { status: 400, message: () => OFFER_MESSAGES.originMissing },
  'offer.appointment-invalid': { status: 400, message: () => OFFER_MESSAGES.badDate },
  'offer.coordinate-out-of-range': { status: 400, message: ({ field, axis }) => OFFER_MESSAGES.outOfRange(field, axis) },
  'offer.address-not-found': {
    status: 400,
    message: ({ which }) => (which === 'origin' ? OFFER_MESSAGES.originNotFound : OFFER_MESSAGES.destinationNotFound),
  },
  'geocoder.unavailable': { status: 503, message: () => GEOCODER_UNAVAILABLE },
  'direct.central-unknown': { status: 404, message: ({ nit }) => DIRECT_MESSAGES.unknownCentral(nit) },
  'direct.type-not-served': { status: 400, message: ({ central, type }) => DIRECT_MESSAGES.typeNotServed(central, type) },
  'direct.technician-unknown': { status: 404, message: () => DIRECT_MESSAGES.unknownTechnician },
  'stop.coordinates-invalid': { status: 400, message: () => STOP_MESSAGES.badCoords },
  'stop.place-missing': { status: 400, message: () => STOP_MESSAGES.missingPlace },
  'stop.address-not-found': { status: 400, message: () => STOP_MESSAGES.notGeocoded },
  'stop.too-many': { status: 400, message: ({ max }) => STOP_MESSAGES.tooMany(max) },
  'responses.offer-not-found': { status: 403, message: () => RESPONSES_MESSAGES.notFound, extra: () => ({ data: [] }) },
  'history.line-unknown': { status: 400, message: () => HISTORY_MESSAGES.unknownLine },
  'finalize.not-found': { status: 404, message: () => FINALIZE_MESSAGES.notFound },
  'acceptance.central-not-caller': { status: 403, message: () => ACCEPTANCE_MESSAGES.notYourCentral },
  'acceptance.offer-not-found': { status: 404, message: () => ACCEPTANCE_MESSAGES.offerNotFound },
  'acceptance.technician-not-found': { status: 404, message: () => ACCEPTANCE_MESSAGES.technicianNotFound },
  'acceptance.generator-api-not-found': { status: 404, message: () => ACCEPTANCE_MESSAGES.generatorApiNotFound },
  'acceptance.already-accepted': { status: 400, message: () => ACCEPTANCE_MESSAGES.alreadyAccepted },
  'acceptance.closed': { status: 400, message: ({ state }) => ACCEPTANCE_MESSAGES.closed(state) },
  'acceptance.coordinate-out-of-range': { status: 400, message: ({ field, axis }) => ACCEPTANCE_MESSAGES.outOfRange(field, axis) },
  'acceptance.position-unknown': { status: 400, message: () => UNKNOWN_POSITION_MESSAGE },
  'progress.coordinates-invalid': { status: 400, message: () => PROGRESS_MESSAGES.badCoords },
  'progress.offer-not-found': { status: 404, message: () => PROGRESS_MESSAGES.notFound },
  'position.zero': { status: 400, message: () => POSITION_MESSAGES.zero },
  'position.technician-not-found': { status: 404, message: () => POSITION_MESSAGES.notFound },
  'delivery.not-found': { status: 404, message: (f) => DELIVERY_MESSAGES.notFound(f.id) },
  'delivery.in-flight': { status: 409, message: (f) => DELIVERY_MESSAGES.inFlight(f.state) },
  'delivery.admin-only': { status: 403, message: () => DELIVERY_MESSAGES.adminOnly },
  'expediente.not-found': { status: 404, message: () => TRACKING_MESSAGES.notFound },
  'tracking.too-many-codes': { status: 429, message: () => TRACKING_MESSAGES.tooManyCodes, headers: () => ({ 'Retry-After': '600' }) },
  'tracking.too-many-attempts': { status: 429, message: () => TRACKING_MESSAGES.tooManyAttempts, headers: (f) => ({ 'Retry-After': String(f.retryAfterS) }) },
  'tracking.code-invalid': { status: 401, message: () => TRACKING_MESSAGES.codeInvalid },
  'tracking.token-invalid': { status: 401, message: () => TRACKING_MESSAGES.tokenInvalid },
  'survey.not-finished': { status: 403, message: (f) => TRACKING_MESSAGES.surveyNotFinished(f.state) },
  'survey.already-answered': { status: 409, message: () => TRACKING_MESSAGES.surveyTwice },
  'chat.closed': { status: 403, message: (f) => (f.reason === 'ended' ? TRACKING_MESSAGES.chatEnded : TRACKING_MESSAGES.chatNotAssigned(f.state)) },
  'chat.read-only': { status: 403, message: () => TRACKING_MESSAGES.chatReadOnly },
  'chat.too-many-messages': { status: 429, message: () => TRACKING_MESSAGES.chatTooMany, headers: (f) => ({ 'Retry-After': String(f.retryAfterS) }) },
  'chat.message-unknown': { status: 404, message: (f) => TRACKING_MESSAGES.chatUnknownMessage(f.id) },
};

function answerOf<C extends DomainErrorCode>(err: DomainError<C>): { status: number; message: string; extra: Record<string, unknown>; headers: Record<string, string> } {
  const entry = ERROR_TABLE[err.code] as Answer<DomainErrorFacts[C]>;
  return { status: entry.status, message: entry.message(err.facts), extra: entry.extra?.(err.facts) ?? {}, headers: entry.headers?.(err.facts) ?? {} };
}

export interface ErrorAnswer {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/**
 * The answer to an error raised while serving a route whose envelope is
 * `envelope`, or null when it is not a known kind of error (a 500 of the
 * caller's choosing).
 */
export function errorAnswer(err: unknown, envelope: Envelope): ErrorAnswer | null {
  if (err instanceof HttpError) return { status: err.status, body: err.body, headers: err.headers };
  if (err instanceof RequestError) return { status: err.status, body: envelopeBody(envelope, err.message, err.extra), headers: {} };
  if (err instanceof DomainError) {
    const a = answerOf(err);
    return { status: a.status, body: envelopeBody(envelope, a.message, a.extra), headers: a.headers };
  }
  return null;
}
