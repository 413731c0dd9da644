/** GET /webhooks/deliveries (D18): the calling API user's own deliveries and their attempts. */
import { page, pageTooDeep } from '../document/responses.js';
import { MAX_LIST_DEPTH } from '../../limits.js';
import type { ErrorObject } from 'ajv';
import type { JSONSchema } from 'json-schema-to-ts';
import { receiverDeliveries } from '../../domain/deliveries/log.js';
import { ControllerError, str } from '../document/components.js';
import { API, apiUserOf, named, operation } from '../operation.js';

export const DELIVERIES_MESSAGES = {
  ok: 'ENTREGAS DE WEBHOOKS',
  uuid: "EL PARÁMETRO 'uuid' DEBE SER UN UUID VÁLIDO",
  estado: "EL PARÁMETRO 'estado' DEBE SER pending, sending, ok O failed",
  page: "EL PARÁMETRO 'page' DEBE SER UN ENTERO POSITIVO",
} as const;

const invalidField = (e: ErrorObject): string => {
  const field = e.instancePath.slice(1);
  return field === 'uuid' || field === 'estado' || field === 'page' ? DELIVERIES_MESSAGES[field] : 'SOLICITUD INVÁLIDA';
};
const date = str(64, { format: 'date-time' });
const nstr = (n: number) => ({ type: ['string', 'null'], maxLength: n }) as const;
const nint = { type: ['integer', 'null'] } as const;

export const DeliveriesQuery = named('DeliveriesQuery', {
  type: 'object',
  properties: {
    uuid: str(36, { pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' }),
    estado: { enum: ['pending', 'sending', 'ok', 'failed'] },
    page: str(6, { pattern: '^[1-9][0-9]{0,5}$' }),
  },
} as const);

const headers = { type: 'object', additionalProperties: str(2048) } as const;

export const DeliveryEntry = named('DeliveryEntry', {
  type: 'object',
  required: ['id', 'eventId', 'uuid', 'kind', 'url', 'estado', 'intentos', 'requestBody', 'creadaEn', 'terminadaEn', 'statusCode', 'latenciaMs', 'attempts'],
  properties: {
    id: str(36),
    eventId: str(255),
    uuid: nstr(36),
    kind: str(32),
    url: str(2048),
    estado: str(16),
    intentos: { type: 'integer' },
    requestBody: { type: 'object' },
    creadaEn: date,
    terminadaEn: nstr(64),
    statusCode: nint,
    latenciaMs: nint,
    attempts: {
      type: 'array',
      items: {
        type: 'object',
        required: ['intento', 'actor', 'fecha', 'requestHeaders', 'statusCode', 'latenciaMs', 'respuesta', 'error'],
        properties: {
          intento: { type: 'integer' },
          actor: { ...str(200), description: '`system`, or `operator` for a resend by hand (which operator is not said to the tenant)' },
          fecha: date,
          requestHeaders: headers,
          statusCode: nint,
          latenciaMs: nint,
          respuesta: nstr(4096),
          error: nstr(4096),
        },
      },
    },
  },
} as const satisfies JSONSchema);

export const listWebhookDeliveries = operation({
  method: 'get',
  path: [API, 'webhooks', 'deliveries'].join('/'),
  operationId: 'listWebhookDeliveries',
  summary: 'The caller’s own webhook deliveries and every attempt (D18)',
  description:
    'Deliveries addressed to the calling API user only (nothing of another tenant), newest first, 50 per page; filter by offer `uuid` and `estado` (pending, sending, ok, failed). Any active API user may read its own, whatever its endpoint list.',
  tag: 'Consultas',
  auth: 'basic',
  endpointGated: false,
  envelope: 'controller',
  input: { schema: DeliveriesQuery, from: 'jsonOrQuery' },
  invalid: { message: invalidField },
  responses: {
    200: {
      description: 'A page of deliveries',
      schema: page('deliveries', DeliveryEntry),
      examples: { ok: { status: true, msg: DELIVERIES_MESSAGES.ok, data: { page: 1, pageSize: 50, total: 0, deliveries: [] } } },
    },
    400: {
      description: `Invalid filter; or a page beyond the first ${MAX_LIST_DEPTH} deliveries (LIM-6: narrow the list with its filters)`,
      schema: ControllerError,
      examples: { estado: { status: false, msg: DELIVERIES_MESSAGES.estado }, deep: { status: false, msg: pageTooDeep(MAX_LIST_DEPTH / 50, MAX_LIST_DEPTH) } },
    },
  },
  handle: async (rt, caller, input) => ({
    status: true,
    msg: DELIVERIES_MESSAGES.ok,
    data: await receiverDeliveries(rt.orm.em.fork(), apiUserOf(caller).id, {
      uuid: input.uuid?.toLowerCase(),
      estado: input.estado,
      page: input.page === undefined ? 1 : Number(input.page),
    }),
  }),
});

export const DELIVERY_SCHEMAS = [DeliveryEntry];
