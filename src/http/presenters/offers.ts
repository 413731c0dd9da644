/** Bodies of POST /oferta (spec 4.1) and GET /offer-responses (4.2). */
import type { OfferResponsesView } from '../../domain/offers/acceptance/responses.js';
import { RESPONSES_MESSAGES } from '../../domain/offers/acceptance/responses.js';
import type { CreateOutcome } from '../../domain/offers/create/create.js';
import { OFFER_MESSAGES } from '../../domain/offers/create/input.js';

export function creationBody(outcome: CreateOutcome): Record<string, unknown> {
  return outcome.kind === 'created'
    ? { status: true, msg: OFFER_MESSAGES.received }
    : { status: true, msg: OFFER_MESSAGES.processing, data: { uuid: outcome.uuid, offersResponses: outcome.offersResponses } };
}

export const responsesBody = (data: OfferResponsesView) => ({ status: true, msg: RESPONSES_MESSAGES.ok, data });
