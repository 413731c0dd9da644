/** The offer lifecycle's edge: POST /oferta (4.1), GET /offer-responses (4.2), PUT /aceptacion (4.3). */
import { acceptOffer as accept, acceptanceMessage } from '../../domain/offers/acceptance/acceptance.js';
import { RESPONSES_MESSAGES, getOfferResponses as responsesOf } from '../../domain/offers/acceptance/responses.js';
import { createOffer as create } from '../../domain/offers/create/create.js';
import { offerErrorMessage } from '../../domain/offers/create/input.js';
import type { Runtime } from '../../domain/ports.js';
import { apiUserOf } from '../caller.js';
import { acceptOffer, createOffer, getOfferResponses } from '../openapi/operations.js';
import { Answer, route, type Route } from '../openapi/router.js';
import { presentAcceptance } from '../presenters/acceptance.js';
import { creationBody, responsesBody } from '../presenters/offers.js';

export function offerRoutes(rt: Runtime): Route[] {
  return [
    route(createOffer, async (ctx, input) => creationBody(await create(rt, apiUserOf(ctx), input)), { invalid: { message: offerErrorMessage } }),
    route(getOfferResponses, async (ctx, { uuid }) => responsesBody(await responsesOf(rt.orm.em.fork(), apiUserOf(ctx).id, uuid)), {
      invalid: { message: () => RESPONSES_MESSAGES.missingUuid, extra: { data: [] } },
    }),
    route(
      acceptOffer,
      async (ctx, input) => {
        const { status, body } = presentAcceptance(await accept(rt, apiUserOf(ctx), input));
        return new Answer(status, body);
      },
      { invalid: { message: acceptanceMessage } },
    ),
  ];
}
