/** GET /admin/offers/{uuid}/recipients (operators): who received an offer, when, and how each push went. */
import { listRecipients as list } from '../../domain/distribution/recipients.js';
import { str } from '../document/components.js';
import { controller, msg } from '../document/responses.js';
import { RequestError } from '../errors.js';
import { API, operation } from '../operation.js';

export const RECIPIENTS_MESSAGES = { ok: 'DESTINATARIOS DE LA OFERTA', notFound: 'OFERTA NO ENCONTRADA' } as const;

export const listRecipients = operation({
  method: 'get',
  path: `${API}/admin/offers/{uuid}/recipients`,
  operationId: 'listRecipients',
  summary: 'Who received an offer, when, and how each push went (operators)',
  tag: 'Operadores',
  auth: 'operator',
  envelope: 'controller',
  pathParams: { uuid: { description: 'the offer', maxLength: 64 } },
  responses: {
    200: {
      description: 'The recipients, centrals first',
      schema: {
        type: 'object',
        required: ['status', 'msg', 'data'],
        properties: {
          status: { const: true },
          msg,
          data: { type: 'object', required: ['uuid', 'estado', 'recipients'], properties: { uuid: str(36), estado: str(20), recipients: { type: 'array' } } },
        },
      },
    },
    404: controller('Unknown offer', { notFound: RECIPIENTS_MESSAGES.notFound }),
  },
  handle: async (rt, _caller, params) => {
    const view = await list(rt.orm.em.fork(), params.uuid);
    if (!view) throw new RequestError(404, RECIPIENTS_MESSAGES.notFound);
    return { status: true, msg: RECIPIENTS_MESSAGES.ok, data: view };
  },
});
