/**
 * POST /api/v3/webhooks/test (D23): a test mode for integrators. The caller
 * (a generator with HTTP Basic, a central with x-apikey) asks for one signed
 * sample of a notification it receives; it goes to the caller's own endpoint
 * for it (`url_api` + `api_endpoint.<tipo>`, never a URL of the request),
 * marked `x-prueba: true` and `prueba: true`, is kept in the delivery log
 * (GET /webhooks/deliveries, kind `test`) and the answer says what the
 * receiver did.
 */
import type { ErrorObject } from 'ajv';
import type { JSONSchema } from 'json-schema-to-ts';
import { sendTestNotification, TEST_KINDS } from '../../domain/deliveries/test.js';
import { ControllerError, str } from '../document/components.js';
import { API, apiUserOf, named, operation } from '../operation.js';

export const WEBHOOK_TEST_MESSAGES = {
  ok: 'NOTIFICACIÓN DE PRUEBA ENVIADA',
  tipo: "EL CAMPO 'tipo' DEBE SER respuesta, estado, novedad U oferta",
  missing: (tipo: string, key: string) => `NO HAY ENDPOINT CONFIGURADO PARA '${tipo}': FALTA ${key} EN EL PERFIL DEL USUARIO`,
} as const;

export const WebhookTestInput = named('WebhookTestInput', {
  type: 'object',
  required: ['tipo'],
  properties: {
    tipo: {
      enum: TEST_KINDS,
      description:
        'Which notification to imitate, named as the key of the profile’s `api_endpoint` it goes to: `respuesta` (acceptance, spec 6.1), `estado` (state change, D12), `novedad` (not assigned or cancelled, to a central), `oferta` (an offer pushed to a central).',
      examples: ['estado'],
    },
  },
  examples: [{ tipo: 'estado' }],
} as const);

export const WebhookTestResult = named('WebhookTestResult', {
  type: 'object',
  required: ['status', 'msg', 'data'],
  properties: {
    status: { const: true },
    msg: str(200),
    data: {
      type: 'object',
      required: ['tipo', 'url', 'deliveryId', 'eventId', 'statusCode', 'latenciaMs', 'ok', 'error'],
      properties: {
        tipo: { enum: TEST_KINDS, description: 'the kind of notification sent' },
        url: { ...str(2048), description: 'where it went: `url_api` + `api_endpoint.<tipo>` of the caller’s profile' },
        deliveryId: { ...str(36), description: 'its row in the delivery log (GET /webhooks/deliveries)' },
        eventId: { ...str(64), description: 'its `webhook-id` (and `x-event-id`, except for `respuesta`)' },
        statusCode: { type: ['integer', 'null'], description: 'what the receiver answered; null when no answer arrived' },
        latenciaMs: { type: 'integer', description: 'milliseconds until the answer (or the failure)' },
        ok: { type: 'boolean', description: 'true only for exactly 200, what the acceptance notification needs to be taken (spec 6.1)' },
        error: { type: ['string', 'null'], maxLength: 4096, description: 'why no answer arrived (timeout, refused connection, a target refused by D24)' },
      },
    },
  },
} as const satisfies JSONSchema);

const invalidField = (e: ErrorObject): string => (e.instancePath === '/tipo' || (e.keyword === 'required' && e.params.missingProperty === 'tipo') ? WEBHOOK_TEST_MESSAGES.tipo : 'SOLICITUD INVÁLIDA');

export const testWebhook = operation({
  method: 'post',
  path: [API, 'webhooks', 'test'].join('/'),
  operationId: 'testWebhook',
  summary: 'Send yourself one signed sample notification (test mode, D23)',
  description:
    'Sends one sample of the notification named by `tipo` to the caller’s own endpoint for it (`url_api` + `api_endpoint.<tipo>` of its profile), signed as real ones are (x-timestamp/x-signature and the Standard Webhooks headers when the profile has a webhook secret, D17; its x-apikey when it has one), marked with the header `x-prueba: true` and `prueba: true` in the body. It is kept in the delivery log (kind `test`) and never retried. A generator calls it with HTTP Basic, a central with x-apikey; any active API user may, whatever its endpoint list. Without that endpoint in the profile: 400 naming the missing key.',
  tag: 'Consultas',
  auth: 'basicOrApiKey',
  endpointGated: false,
  envelope: 'controller',
  input: { schema: WebhookTestInput, from: 'json' },
  invalid: { message: invalidField },
  responses: {
    200: {
      description: 'Sent; what the receiver answered (a receiver’s failure is a 200 here with `ok: false`)',
      schema: WebhookTestResult,
      examples: {
        received: {
          status: true,
          msg: WEBHOOK_TEST_MESSAGES.ok,
          data: {
            tipo: 'estado',
            url: 'https://api.aseguradora.example/webhooks/estado',
            deliveryId: '6f1c2d3e-4b5a-4c6d-8e7f-901234567890',
            eventId: '0b7c1e9a-2f4d-4e8b-9a1c-3d5e7f901234',
            statusCode: 200,
            latenciaMs: 84,
            ok: true,
            error: null,
          },
        },
      },
    },
    400: {
      description: 'No such endpoint in the caller’s profile, or `tipo` invalid',
      schema: ControllerError,
      examples: {
        missing: { status: false, msg: WEBHOOK_TEST_MESSAGES.missing('respuesta', 'api_endpoint.respuesta') },
        tipo: { status: false, msg: WEBHOOK_TEST_MESSAGES.tipo },
      },
    },
  },
  handle: async (rt, caller, input) => ({ status: true, msg: WEBHOOK_TEST_MESSAGES.ok, data: await sendTestNotification(rt, apiUserOf(caller), input.tipo) }),
});
