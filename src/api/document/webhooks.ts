/**
 * The requests this service sends (the document's `webhooks`): the acceptance
 * notification (spec 6.1), the state notifications and novelties (D12) and
 * the offer pushed to a central (D9, D12). All are PUT with a JSON body to a
 * URL of the receiver's API profile (`url_api` + `api_endpoint.<key>`).
 */
import { str } from './components.js';
import type { Json, JsonObject } from './openapi.js';
import { named } from '../operation.js';

const nullable = (s: object) => ({ anyOf: [s, { type: 'null' }] });
const S = str(255);

/** 6.1 */
export const AcceptanceNotification = named('AcceptanceNotification', {
  type: 'object',
  required: [
    'id',
    'idGestor',
    'dniGestor',
    'dniPrestador',
    'nombrePrestador',
    'telefonoCentral',
    'latitudTecnico',
    'longitudTecnico',
    'identificadorTecnico',
    'dniTecnico',
    'telefonoTecnico',
    'tarifaEstimadaServicio',
    'tiempoLlegadaSitio',
  ],
  properties: {
    id: str(36, { format: 'uuid' }),
    idGestor: S,
    dniGestor: S,
    dniPrestador: S,
    nombrePrestador: S,
    telefonoCentral: S,
    latitudTecnico: str(32),
    longitudTecnico: str(32),
    identificadorTecnico: S,
    dniTecnico: S,
    telefonoTecnico: S,
    tarifaEstimadaServicio: str(32, { examples: ['0'] }),
    tiempoLlegadaSitio: { type: 'number', description: 'estimated minutes to arrive' },
    codigoServicio: { ...str(32), description: 'only when an own central accepted: the service is assigned at once (D4b, D16)' },
  },
} as const);

/** D12: `{id, estado, fecha, detalle}` */
export const StateNotification = named('StateNotification', {
  type: 'object',
  required: ['id', 'estado', 'fecha', 'detalle'],
  properties: {
    id: str(36, { format: 'uuid' }),
    estado: str(20, { examples: ['SIN_RESPUESTA', 'ASIGNADA', 'EN_CAMINO', 'FINALIZADA', 'CANCELADA'] }),
    fecha: str(64, { format: 'date-time' }),
    detalle: str(2000),
    codigoServicio: { ...str(32), description: 'the service’s code, once it has one (from ASIGNADA on, D16)' },
  },
} as const);

/** D9/D12: the offer's fields pushed to a central (and a direct assignment). */
export const OfferPush = named('OfferPush', {
  type: 'object',
  required: ['uuid', 'tipoServicio', 'descripcionServicio', 'latitudOrigen', 'longitudOrigen'],
  properties: {
    uuid: str(36, { format: 'uuid' }),
    tipoServicio: { type: 'integer' },
    descripcionServicio: str(2000),
    latitudOrigen: { type: 'number' },
    longitudOrigen: { type: 'number' },
    direccionOrigen: nullable(str(500)),
    puntoReferenciaOrigen: nullable(str(500)),
    ciudad: nullable(S),
    departamento: nullable(S),
    direccionDestino: nullable(str(500)),
    puntoReferenciaDestino: nullable(str(500)),
    latitudDestino: nullable({ type: 'number' }),
    longitudDestino: nullable({ type: 'number' }),
    observaciones: nullable(str(5200)),
    fechaCita: nullable(str(32)),
    horaCita: nullable(str(32)),
    deadline: nullable(str(64, { format: 'date-time' })),
    tecnicosCercanos: {
      type: 'array',
      items: { type: 'object', required: ['dniTecnico', 'distance'], properties: { dniTecnico: S, distance: { type: 'number' } } },
    },
    asignacionDirecta: { type: 'boolean' },
    codigoServicio: str(32),
    codigoSolicitud: str(32),
  },
} as const);

export const WEBHOOK_SCHEMAS = [AcceptanceNotification, StateNotification, OfferPush];

const header = (name: string, description: string, max = 255): JsonObject => ({ name, in: 'header', required: false, description, schema: { type: 'string', maxLength: max } });
const KEY = header('x-apikey', 'the receiver’s API key, when its profile has one');
const EVENT_ID = header('x-event-id', 'the notification’s id: receivers deduplicate by it (D12)', 64);
const SIGNATURE = [
  header('x-timestamp', 'Unix seconds of the signature, when the receiver has a webhook secret', 32),
  header('x-signature', 'hex HMAC-SHA256 of `<x-timestamp>.<raw body>` with the receiver’s webhook secret', 128),
];

/**
 * How a receiver knows the request is ours: its own x-apikey when its profile
 * has one, the x-timestamp/x-signature pair when it has a webhook secret (D5,
 * D17), either, both or neither (schemes in document.ts).
 */
const RECEIVER_SECURITY: Json = [{ receiverApiKey: [], receiverSignature: [] }, { receiverApiKey: [] }, { receiverSignature: [] }, {}];

function put(summary: string, description: string, schema: string, parameters: JsonObject[], responses: JsonObject): Record<string, JsonObject> {
  return {
    put: {
      summary,
      description,
      security: RECEIVER_SECURITY,
      parameters: parameters as Json,
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } } },
      responses,
    },
  };
}

export const WEBHOOKS: Record<string, Record<string, JsonObject>> = {
  acceptanceNotification: put(
    'Acceptance notification (spec 6.1)',
    'PUT {url_api}{api_endpoint.respuesta} of the generator when the best response is selected. One attempt, no retries: any answer but 200 rejects the assignment (the offer becomes INACTIVA). The reply body is not inspected.',
    AcceptanceNotification.name,
    [KEY, ...SIGNATURE],
    { 200: { description: 'The generator takes the assignment' }, default: { description: 'Any other answer rejects it' } },
  ),
  stateNotification: put(
    'State notification (D12)',
    'PUT {url_api}{api_endpoint.estado} of the generator after every transition of its offer after creation; "not assigned" and "cancelled" also go to the central at api_endpoint.novedad. Retried with exponential backoff until a 2xx, in order per offer and receiver.',
    StateNotification.name,
    [KEY, EVENT_ID, ...SIGNATURE],
    { '2XX': { description: 'Received' }, default: { description: 'Retried later (Retry-After honoured)' } },
  ),
  offerPush: put(
    'Offer pushed to a central (D9, D12)',
    'PUT {url_api}{api_endpoint.oferta} of each covering central when an offer is distributed; a direct assignment adds asignacionDirecta, codigoServicio and codigoSolicitud.',
    OfferPush.name,
    [KEY, EVENT_ID, ...SIGNATURE],
    { '2XX': { description: 'Received' }, default: { description: 'Retried later' } },
  ),
};
