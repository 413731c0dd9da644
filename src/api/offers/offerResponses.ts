/** GET /offer-responses (spec 4.2): the responses received for one of the caller's offers. */
import { getOfferResponses as responsesOf, type OfferResponsesView } from '../../domain/offers/acceptance/responses.js';
import { OfferResponseEntry, ref } from '../document/components.js';
import { controller, msg } from '../document/responses.js';
import { API, apiUserOf, named, operation } from '../operation.js';

export const RESPONSES_MESSAGES = {
  ok: 'RESPUESTAS DE LA OFERTA',
  missingUuid: 'NO SE HA PROPORCIONADO EL UUID DE LA OFERTA',
  notFound: 'NO SE HA ENCONTRADO LA OFERTA',
} as const;

/** The uuid in the JSON body (spec 4.2) or the query string. */
export const OfferResponsesInput = named('OfferResponsesInput', {
  type: 'object',
  required: ['uuid'],
  properties: { uuid: { type: 'string', minLength: 1, maxLength: 64 } },
} as const);

export const responsesBody = (data: OfferResponsesView) => ({ status: true, msg: RESPONSES_MESSAGES.ok, data });

export const getOfferResponses = operation({
  method: 'get',
  path: `${API}/offer-responses`,
  operationId: 'getOfferResponses',
  summary: 'Responses received for an offer (spec 4.2)',
  description: 'The uuid travels in the JSON body of the GET (as the spec sends it) or in the query string.',
  tag: 'Ofertas',
  auth: 'basic',
  envelope: 'controller',
  input: { schema: OfferResponsesInput, from: 'jsonOrQuery' },
  invalid: { message: () => RESPONSES_MESSAGES.missingUuid, extra: { data: [] } },
  // spec 4.2: an offer that is not the caller's is a 403 with `data: []`
  wording: { 'offer.not-found': { status: 403, message: RESPONSES_MESSAGES.notFound, extra: { data: [] } } },
  responses: {
    200: {
      description: 'The responses so far (best first) and the accepted one',
      schema: {
        type: 'object',
        required: ['status', 'msg', 'data'],
        properties: {
          status: { const: true },
          msg,
          data: {
            type: 'object',
            required: ['responses', 'accepted'],
            properties: {
              responses: { type: 'array', items: ref(OfferResponseEntry) },
              accepted: { anyOf: [ref(OfferResponseEntry), { type: 'null' }] },
            },
          },
        },
      },
      examples: { open: { status: true, msg: RESPONSES_MESSAGES.ok, data: { responses: [], accepted: null } } },
    },
    400: controller('uuid missing', { missing: RESPONSES_MESSAGES.missingUuid }, { data: [] }),
    403: controller('Offer not found (or not the caller’s)', { notFound: RESPONSES_MESSAGES.notFound }, { data: [] }),
  },
  handle: async (rt, caller, { uuid }) => responsesBody(await responsesOf(rt.orm.em.fork(), apiUserOf(caller).id, uuid)),
});
