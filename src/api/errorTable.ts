/**
 * The one table from a domain error's code to its answer (issue 10, STYLE 9):
 * the spec's status, its message (texts kept exactly, from the operation's
 * or the use case's message table) and any extra body fields. The envelope is
 * the operation's; an operation may word a code its own way (its `wording`,
 * e.g. `offer.not-found`). HTTP (src/http/middleware/errors.ts) and the
 * socket (invoke.ts) answer with this same table.
 */
import { DomainError, type DomainErrorCode, type DomainErrorFacts } from '../domain/errors.js';
import { OFFER_MESSAGES } from './offers/createOffer.js';
import { QUOTA_MESSAGES } from './offers/quota.js';
import { OFFER_NOT_FOUND } from '../domain/offers/lifecycle/ownership.js';
import { DIRECT_MESSAGES } from './service/directAssignment.js';
import { STOP_MESSAGES } from './service/addAddress.js';
import { HISTORY_MESSAGES } from './catalog/history.js';
import { pageTooDeep } from './document/responses.js';
import { UNKNOWN_POSITION_MESSAGE } from '../geo/figures.js';
import { GEOCODER_UNAVAILABLE } from '../geocoding/geocoder.js';
import { TRACKING_MESSAGES } from './customer/messages.js';
import { DELIVERY_MESSAGES } from './deliveries/console.js';
import { WEBHOOK_TEST_MESSAGES } from './webhooks/testWebhook.js';
import { HttpError, RequestError, envelopeBody, type Envelope } from '../envelopes.js';
import { ACCEPTANCE_MESSAGES } from './offers/acceptOffer.js';
import type { Wording } from './operation.js';
import { refusedMoveMessage } from './refusals.js';
import { PROGRESS_MESSAGES } from './service/progress.js';
import { POSITION_MESSAGES } from './service/position.js';
import { TECHNICIAN_CHANGE_MESSAGES } from './providers/changeTechnician.js';
import { UNAVAILABLE_MESSAGE, UNAVAILABLE_RETRY_AFTER_S, isOutage } from '../outage.js';

interface Answer<F> {
  status: number;
  message: (facts: F) => string;
  /** body fields beside the message (controller and key envelopes) */
  extra?: (facts: F) => Record<string, unknown>;
  /** response headers (Retry-After of a 429) */
  headers?: (facts: F) => Record<string, string>;
}

type ErrorTable = { [C in DomainErrorCode]: Answer<DomainErrorFacts[C]> };

export const ERROR_TABLE: ErrorTable = {
  // one concept; GET /offer-responses, PUT /aceptacion, PUT /estado-servicio and POST /finalize word it their own way
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
  'history.line-unknown': { status: 400, message: () => HISTORY_MESSAGES.unknownLine },
  'acceptance.central-not-caller': { status: 403, message: () => ACCEPTANCE_MESSAGES.notYourCentral },
  'acceptance.technician-not-found': { status: 404, message: () => ACCEPTANCE_MESSAGES.technicianNotFound },
  'acceptance.generator-api-not-found': { status: 404, message: () => ACCEPTANCE_MESSAGES.generatorApiNotFound },
  'acceptance.already-accepted': { status: 400, message: () => ACCEPTANCE_MESSAGES.alreadyAccepted },
  'acceptance.closed': { status: 400, message: ({ state }) => ACCEPTANCE_MESSAGES.closed(state) },
  'acceptance.coordinate-out-of-range': { status: 400, message: ({ field, axis }) => ACCEPTANCE_MESSAGES.outOfRange(field, axis) },
  'acceptance.position-unknown': { status: 400, message: () => UNKNOWN_POSITION_MESSAGE },
  'acceptance.not-a-recipient': { status: 400, message: () => ACCEPTANCE_MESSAGES.notARecipient },
  'technician.busy': { status: 400, message: () => ACCEPTANCE_MESSAGES.technicianBusy },
  'technician.not-of-central': { status: 404, message: () => TECHNICIAN_CHANGE_MESSAGES.technicianNotFound },
  'technician.inactive': { status: 400, message: () => TECHNICIAN_CHANGE_MESSAGES.inactive },
  'technician.already-assigned': { status: 400, message: () => TECHNICIAN_CHANGE_MESSAGES.same },
  'service.not-found': { status: 404, message: () => TECHNICIAN_CHANGE_MESSAGES.serviceNotFound },
  'acceptance.arrival-implausible': { status: 400, message: () => ACCEPTANCE_MESSAGES.implausibleArrival },
  'progress.coordinates-invalid': { status: 400, message: () => PROGRESS_MESSAGES.badCoords },
  'position.zero': { status: 400, message: () => POSITION_MESSAGES.zero },
  'position.technician-not-found': { status: 404, message: () => POSITION_MESSAGES.notFound },
  'delivery.not-found': { status: 404, message: (f) => DELIVERY_MESSAGES.notFound(f.id) },
  'delivery.in-flight': { status: 409, message: (f) => DELIVERY_MESSAGES.inFlight(f.state) },
  'delivery.admin-only': { status: 403, message: () => DELIVERY_MESSAGES.adminOnly },
  'delivery.consent-needed': { status: 400, message: () => DELIVERY_MESSAGES.understand },
  'webhook-test.endpoint-missing': { status: 400, message: (f) => WEBHOOK_TEST_MESSAGES.missing(f.tipo, f.key) },
  'expediente.not-found': { status: 404, message: () => TRACKING_MESSAGES.notFound },
  'tracking.too-many-codes': { status: 429, message: () => TRACKING_MESSAGES.tooManyCodes, headers: () => ({ 'Retry-After': '600' }) },
  'tracking.too-many-attempts': { status: 429, message: () => TRACKING_MESSAGES.tooManyAttempts, headers: (f) => ({ 'Retry-After': String(f.retryAfterS) }) },
  'tracking.code-invalid': { status: 401, message: () => TRACKING_MESSAGES.codeInvalid },
  'list.too-deep': { status: 400, message: ({ maxPage, maxRows }) => pageTooDeep(maxPage, maxRows) },
  'tracking.token-invalid': { status: 401, message: () => TRACKING_MESSAGES.tokenInvalid },
  'tracking.not-a-share-link': { status: 401, message: () => TRACKING_MESSAGES.notAShareLink },
  'tracking.too-many-share-links': { status: 429, message: (f) => TRACKING_MESSAGES.tooManyShareLinks(f.max), headers: () => ({ 'Retry-After': '3600' }) },
  'survey.not-finished': { status: 403, message: (f) => TRACKING_MESSAGES.surveyNotFinished(f.state) },
  'survey.already-answered': { status: 409, message: () => TRACKING_MESSAGES.surveyTwice },
  'chat.closed': { status: 403, message: (f) => (f.reason === 'ended' ? TRACKING_MESSAGES.chatEnded : TRACKING_MESSAGES.chatNotAssigned(f.state)) },
  'chat.read-only': { status: 403, message: () => TRACKING_MESSAGES.chatReadOnly },
  'chat.too-many-messages': { status: 429, message: () => TRACKING_MESSAGES.chatTooMany, headers: (f) => ({ 'Retry-After': String(f.retryAfterS) }) },
  'quota.offers': { status: 429, message: () => QUOTA_MESSAGES.offers, headers: (f) => ({ 'Retry-After': String(f.retryAfterS) }) },
  'chat.message-unknown': { status: 404, message: (f) => TRACKING_MESSAGES.chatUnknownMessage(f.id) },
};

/** An operation's own wording of some codes (its declaration's `wording`). */
export type OperationWording = Partial<Record<DomainErrorCode, Wording>>;

function answerOf<C extends DomainErrorCode>(
  err: DomainError<C>,
  wording: OperationWording = {},
): { status: number; message: string; extra: Record<string, unknown>; headers: Record<string, string> } {
  const own = wording[err.code];
  if (own) return { status: own.status, message: own.message, extra: own.extra ?? {}, headers: {} };
  const entry = ERROR_TABLE[err.code] as Answer<DomainErrorFacts[C]>;
  return { status: entry.status, message: entry.message(err.facts), extra: entry.extra?.(err.facts) ?? {}, headers: entry.headers?.(err.facts) ?? {} };
}

export interface ErrorAnswer {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/**
 * The answer to an error raised while serving an operation whose envelope is
 * `envelope` (and whose own wording of some codes is `wording`), or null when
 * it is not a known kind of error (a 500 of the caller's choosing). PostgreSQL
 * or Redis away is a known kind: 503 with Retry-After (D21).
 */
export function errorAnswer(err: unknown, envelope: Envelope, wording?: OperationWording): ErrorAnswer | null {
  if (err instanceof HttpError) return { status: err.status, body: err.body, headers: err.headers };
  if (err instanceof RequestError) return { status: err.status, body: envelopeBody(envelope, err.message, err.extra), headers: {} };
  if (err instanceof DomainError) {
    const a = answerOf(err, wording);
    return { status: a.status, body: envelopeBody(envelope, a.message, a.extra), headers: a.headers };
  }
  // D21: PostgreSQL or Redis away (src/outage.ts): try again later, never a 500
  if (isOutage(err)) return { status: 503, body: envelopeBody(envelope, UNAVAILABLE_MESSAGE), headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) } };
  return null;
}
