/** GET /admin/offers/{uuid}/recipients (operators): who received an offer, when, and how each push went. */
import { listRecipients as list } from '../../domain/distribution/recipients.js';
import { str } from '../document/components.js';
import type { JSONSchema } from 'json-schema-to-ts';
import { controller, msg, nullable } from '../document/responses.js';
import { RequestError } from '../../envelopes.js';
import { API, operation } from '../operation.js';

const date = str(64, { format: 'date-time' });

/** One recipient of an offer as operators see it (domain/distribution/recipients.ts RecipientView). */
const RECIPIENT = {
  type: 'object',
  required: ['kind', 'channel', 'central', 'technician', 'distanceKm', 'selectedAt', 'sentAt', 'push'],
  properties: {
    kind: { enum: ['central', 'technician'] },
    channel: { enum: ['http', 'none', 'realtime'] },
    central: { type: 'object', required: ['nit', 'name'], properties: { nit: str(255), name: str(255) } },
    technician: nullable({ type: 'object', required: ['dni', 'names'], properties: { dni: str(255), names: str(255) } }),
    distanceKm: { type: ['number', 'null'] },
    selectedAt: date,
    sentAt: nullable(date),
    push: nullable({
      type: 'object',
      required: ['state', 'url', 'statusCode', 'latencyMs', 'error'],
      properties: {
        state: str(16),
        url: str(2048),
        statusCode: { type: ['integer', 'null'] },
        latencyMs: { type: ['integer', 'null'] },
        error: nullable(str(4096)),
      },
    }),
  },
} as const satisfies JSONSchema;

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
          data: { type: 'object', required: ['uuid', 'estado', 'recipients'], properties: { uuid: str(36), estado: str(20), recipients: { type: 'array', items: RECIPIENT } } },
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
