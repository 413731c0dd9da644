/**
 * POST /oferta (spec 4.1, D1, D3): a generator publishes an offer. Its body's
 * schema and messages are the offer's input (src/domain/offers/create/input.ts),
 * which POST /asignacion-directa extends.
 */
import { createOffer as create, type CreateOutcome } from '../../domain/offers/create/create.js';
import { OFFER_MESSAGES, offerErrorMessage, offerSchema } from '../../domain/offers/create/input.js';
import { OfferResponseEntry, ref, str } from '../document/components.js';
import { controller, msg } from '../document/responses.js';
import { API, apiUserOf, named, operation } from '../operation.js';

export const OfferInput = named('OfferInput', offerSchema);

export function creationBody(outcome: CreateOutcome): Record<string, unknown> {
  return outcome.kind === 'created'
    ? { status: true, msg: OFFER_MESSAGES.received }
    : { status: true, msg: OFFER_MESSAGES.processing, data: { uuid: outcome.uuid, offersResponses: outcome.offersResponses } };
}

export const createOffer = operation({
  method: 'post',
  path: `${API}/oferta`,
  operationId: 'createOffer',
  summary: 'Publish an offer of service (spec 4.1)',
  description: 'Opens the 30-second response window (D1) and distributes the offer to the centrals and technicians that cover its origin.',
  tag: 'Ofertas',
  auth: 'basic',
  envelope: 'controller',
  input: { schema: OfferInput, from: 'json' },
  invalid: { message: offerErrorMessage },
  responses: {
    200: {
      description: 'Offer received, or the uuid is already under evaluation (with the responses so far)',
      schema: {
        type: 'object',
        required: ['status', 'msg'],
        properties: {
          status: { const: true },
          msg,
          data: {
            type: 'object',
            required: ['uuid', 'offersResponses'],
            properties: { uuid: str(36), offersResponses: { type: 'array', items: ref(OfferResponseEntry) } },
          },
        },
      },
      examples: {
        received: { status: true, msg: OFFER_MESSAGES.received },
        processing: { status: true, msg: OFFER_MESSAGES.processing, data: { uuid: '0b8f6f7e-3c1a-4d2b-9e5f-1a2b3c4d5e6f', offersResponses: [] } },
      },
    },
    400: controller('Missing or invalid data, an address that cannot be geocoded, or a uuid already offered', {
      uuidMissing: OFFER_MESSAGES.uuidMissing,
      originMissing: OFFER_MESSAGES.originMissing,
      originNotFound: OFFER_MESSAGES.originNotFound,
      typeMissing: OFFER_MESSAGES.typeMissing,
      alreadyOffered: OFFER_MESSAGES.alreadyOffered,
    }),
  },
  handle: async (rt, caller, input) => creationBody(await create(rt, apiUserOf(caller), input)),
});
