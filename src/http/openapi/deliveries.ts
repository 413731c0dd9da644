/**
 * The delivery log (D18) and the operator console (issue 11): a generator's
 * own deliveries over the API, and the operators' pages (find an offer, its
 * timeline, ranking, recipients and deliveries; resend one as an admin).
 */
import type { JSONSchema } from 'json-schema-to-ts';
import { ControllerError, str } from './components.js';
import { named, operation } from './types.js';

const API = '/api/v3';
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
          actor: str(200),
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
  responses: {
    200: {
      description: 'A page of deliveries',
      schema: {
        type: 'object',
        required: ['status', 'msg', 'data'],
        properties: {
          status: { const: true },
          msg: str(2000),
          data: {
            type: 'object',
            required: ['page', 'pageSize', 'total', 'deliveries'],
            properties: {
              page: { type: 'integer' },
              pageSize: { type: 'integer' },
              total: { type: 'integer' },
              deliveries: { type: 'array', items: { $ref: `#/components/schemas/${DeliveryEntry.name}` } },
            },
          },
        },
      } as JSONSchema,
      examples: { ok: { status: true, msg: 'ENTREGAS DE WEBHOOKS', data: { page: 1, pageSize: 50, total: 0, deliveries: [] } } },
    },
    400: { description: 'Invalid filter', schema: ControllerError, examples: { estado: { status: false, msg: "EL PARÁMETRO 'estado' DEBE SER pending, sending, ok O failed" } } },
  },
});

/* ----- the operator console (HTML, D15 roles) ----- */

const page = (description: string) => ({ description, contentType: 'text/html' as const });
const seeOther = (description: string) => ({ description, headers: { Location: { description: 'where the browser goes', schema: str(2048) } } });

export const consoleHome = operation({
  method: 'get',
  path: '/admin/console',
  operationId: 'consoleHome',
  summary: 'The operator console: find an offer by uuid or codigoServicio (`?q=`); receivers’ health',
  tag: 'Operadores',
  auth: 'operator',
  envelope: 'html',
  responses: {
    200: page('The console (with a message when `q` finds nothing)'),
    302: seeOther('Not signed in: to the login form'),
    303: seeOther('`q` names an offer: to its timeline'),
  },
});

export const consoleOffer = operation({
  method: 'get',
  path: '/admin/console/ofertas/{ref}',
  operationId: 'consoleOffer',
  summary: 'An offer’s timeline: transitions, the D2 ranking with each response’s figures, recipients, every delivery',
  tag: 'Operadores',
  auth: 'operator',
  envelope: 'html',
  pathParams: { ref: { description: 'the offer uuid or its codigoServicio', maxLength: 64 } },
  responses: { 200: page('The timeline'), 302: seeOther('Not signed in: to the login form'), 404: page('No such offer') },
});

export const consoleResend = operation({
  method: 'post',
  path: '/admin/console/entregas/{id}/reenviar',
  operationId: 'consoleResend',
  summary: 'Resend one finished delivery by hand, same webhook-id (admin only, audited, D18)',
  tag: 'Operadores',
  auth: 'operator',
  envelope: 'html',
  pathParams: { id: { description: 'the delivery id', maxLength: 64 } },
  responses: {
    303: seeOther('Sent: back to the offer’s timeline'),
    302: seeOther('Not signed in: to the login form'),
    403: page('Not an admin, or posted from another site'),
    404: page('No such delivery'),
    409: page('The delivery is still pending or being sent'),
  },
});

export const DELIVERY_SCHEMAS = [DeliveryEntry];

/* ----- metrics (D19) ----- */

export const metricsEndpoint = operation({
  method: 'get',
  path: '/metrics',
  operationId: 'metrics',
  summary: 'Prometheus metrics of every API and worker process (D19), for operators',
  description:
    'An operator’s Bearer JWT or session cookie, or `Authorization: Bearer <METRICS_TOKEN>` for a scraper. HTTP durations by route and status, selection lateness, webhook deliveries by kind and outcome, BullMQ queue depths, sockets, process figures.',
  tag: 'Sistema',
  auth: 'none',
  envelope: 'system',
  responses: {
    200: { description: 'Prometheus text format', contentType: 'text/plain' },
    401: {
      description: 'Neither an operator’s session nor the metrics token',
      schema: { $ref: '#/components/schemas/SystemError' } as JSONSchema,
    },
  },
});

export const DELIVERY_OPERATIONS = [listWebhookDeliveries, consoleHome, consoleOffer, consoleResend, metricsEndpoint] as const;
