/**
 * The WebSocket events (D10, docs/realtime.md) as an AsyncAPI 3.0 document,
 * served at GET /api/v3/asyncapi.json. The incoming events' data are the
 * OpenAPI document's Socket* components (socket.ts), the same schemas
 * src/realtime/protocol.ts validates with. test/http/document.test.ts keeps
 * this document and docs/realtime.md listing the same events.
 */
import { OfferResponseEntry, str } from './components.js';
import type { Json, JsonObject } from './openapi.js';
import { openApiDocument } from './openapi.js';
import { ServicioSchema } from '../providers/servicio.js';
import { SocketOfferRespond, SocketPing, SocketPosition, SocketProgress } from './socket.js';

const uuid = str(36, { format: 'uuid' });
const iso = str(64, { format: 'date-time' });
const obj = (required: string[], properties: Record<string, unknown>) => ({ type: 'object', required, properties });

/** Server → client events and their data. */
export const OUTGOING: Record<string, { summary: string; data: unknown }> = {
  connected: { summary: 'The socket is open; its id can be sent in POST /oferta (D3)', data: obj(['socketId'], { socketId: str(64) }) },
  'offer.new': {
    summary: 'An offer distributed to this technician',
    data: obj(['uuid', 'tipoServicio', 'deadline', 'distance'], {
      uuid,
      tipoServicio: { type: 'integer' },
      descripcionServicio: str(2000),
      latitudOrigen: { type: 'number' },
      longitudOrigen: { type: 'number' },
      deadline: iso,
      distance: { type: 'number', description: 'km' },
    }),
  },
  'offer.response': { summary: 'A response to one of the generator’s offers', data: obj(['uuid', 'response'], { uuid, response: { $ref: `#/components/schemas/${OfferResponseEntry.name}` } }) },
  'offer.accepted': { summary: 'The response selected for one of the generator’s offers', data: obj(['uuid', 'accepted'], { uuid, accepted: { $ref: `#/components/schemas/${OfferResponseEntry.name}` } }) },
  'offer.state': { summary: 'A transition of the offer', data: obj(['uuid', 'estado', 'anterior', 'fecha'], { uuid, estado: str(20), anterior: str(20), fecha: iso }) },
  'offer.closed': {
    summary:
      'The offer’s window closed. To a technician that received the offer, when another technician’s response was selected: it lost, and gets no further event of that offer (D20)',
    data: obj(['uuid', 'result'], { uuid, result: { enum: ['selected', 'no-response', 'withdrawn', 'assigned-own'] } }),
  },
  'offer.selected': {
    summary: 'To the technician whose response was selected (D20): it won; it keeps receiving the offer’s offer.state',
    data: obj(['uuid', 'estado', 'accepted'], {
      uuid,
      estado: { enum: ['ACEPTADA', 'ASIGNADA'], description: 'ASIGNADA when its own generator’s central accepted (D4b)' },
      accepted: { $ref: `#/components/schemas/${OfferResponseEntry.name}` },
    }),
  },
  'service.assigned': {
    summary: 'To the technician: the service is its to do (D20), with what the crew needs (never the customer’s phone)',
    data: obj(['uuid', 'codigoServicio', 'estado', 'servicio'], {
      uuid,
      codigoServicio: { anyOf: [str(32), { type: 'null' }] },
      estado: str(20),
      servicio: { $ref: `#/components/schemas/${ServicioSchema.name}` },
    }),
  },
  'service.released': {
    summary: 'To the technician: the service is no longer its to do (D20, a change of technician)',
    data: obj(['uuid', 'codigoServicio', 'motivo'], { uuid, codigoServicio: { anyOf: [str(32), { type: 'null' }] }, motivo: str(2000) }),
  },
  'offer.subscribed': { summary: 'The socket named in POST /oferta follows that offer', data: obj(['uuid'], { uuid }) },
  'offer.respond.result': { summary: 'Answer to offer.respond: the HTTP status and body of PUT /aceptacion', data: obj(['status', 'body'], { status: { type: 'integer' }, body: {} }) },
  'position.result': { summary: 'Answer to position: as PUT /posicion-tecnico', data: obj(['status', 'body'], { status: { type: 'integer' }, body: {} }) },
  'progress.result': { summary: 'Answer to progress: as PUT /estado-servicio', data: obj(['status', 'body'], { status: { type: 'integer' }, body: {} }) },
  'service.position': {
    summary: 'To the customer (tracking token): the assigned technician’s position while EN_CAMINO (D14), at most one per POSITION_NOTICE_MS per service (D24)',
    data: obj(['uuid', 'expediente', 'latitud', 'longitud', 'fecha'], { uuid, expediente: str(64), latitud: { type: 'number' }, longitud: { type: 'number' }, fecha: iso }),
  },
  'chat.message': {
    summary: 'To the other side of a service’s chat (customer or assigned technician): a new message (D14)',
    data: obj(['uuid', 'expediente', 'message'], { uuid, expediente: str(64), message: { $ref: '#/components/schemas/ChatMessage' } }),
  },
  'chat.read': {
    summary: 'To the other side of a service’s chat: its messages were read up to `hasta` (D14)',
    data: obj(['uuid', 'expediente', 'lector', 'hasta', 'leidoEn'], { uuid, expediente: str(64), lector: { enum: ['cliente', 'tecnico'] }, hasta: { type: 'integer' }, leidoEn: iso }),
  },
  'technician.position': {
    summary: 'To operators (D23): a technician reported its position (PUT /posicion-tecnico or its socket); the console’s live map moves it',
    data: obj(['tecnicoId', 'estado', 'latitud', 'longitud', 'fecha'], {
      tecnicoId: { type: 'integer' },
      estado: { enum: ['libre', 'ocupado', 'no-disponible'] },
      latitud: { type: 'number' },
      longitud: { type: 'number' },
      fecha: iso,
    }),
  },
  'offer.states': {
    summary: 'To operators (D23): offers that changed state, one message per batch of transitions; offers just distributed come as ABIERTA with anterior null',
    data: obj(['cambios', 'fecha'], {
      cambios: { type: 'array', items: obj(['uuid', 'estado', 'anterior'], { uuid, estado: str(20), anterior: { anyOf: [str(20), { type: 'null' }] } }) },
      fecha: iso,
    }),
  },
  pong: { summary: 'Answer to ping', data: { type: 'object' } },
  error: { summary: 'A bad message; the connection stays open', data: obj(['message'], { message: str(2000), details: {} }) },
};

/** Client → server events, who may send them and their data (components of the OpenAPI document). */
export const INCOMING_DOC: Record<string, { summary: string; senders: string[]; schema: string }> = {
  ping: { summary: 'Liveness; answered with pong', senders: ['generator', 'technician', 'operator', 'customer'], schema: SocketPing.name },
  'offer.respond': { summary: 'PUT /aceptacion (D4) as the socket’s technician → offer.respond.result', senders: ['technician'], schema: SocketOfferRespond.name },
  position: { summary: 'The technician’s position and availability → position.result', senders: ['technician'], schema: SocketPosition.name },
  progress: { summary: 'PUT /estado-servicio (D11) as the assigned technician → progress.result', senders: ['technician'], schema: SocketProgress.name },
};

/** `offer.respond.result` → `offerRespondResult` */
const key = (event: string) =>
  event
    .split('.')
    .map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1)))
    .join('');

function frame(event: string, data: unknown): JsonObject {
  return { type: 'object', required: ['event', 'data'], properties: { event: { const: event }, data: data as Json, ref: str(64) } } as JsonObject;
}

let cached: JsonObject | undefined;

export function asyncApiDocument(): JsonObject {
  if (cached) return cached;
  const openapi = openApiDocument();
  const messages: Record<string, JsonObject> = {};
  const operations: Record<string, JsonObject> = {};
  for (const [event, m] of Object.entries(OUTGOING)) {
    messages[key(event)] = { name: event, summary: m.summary, payload: frame(event, m.data) };
    operations[key(`send.${event}`)] = { action: 'send', channel: { $ref: '#/channels/v3' }, messages: [{ $ref: `#/channels/v3/messages/${key(event)}` }] };
  }
  for (const [event, m] of Object.entries(INCOMING_DOC)) {
    messages[key(event)] = {
      name: event,
      summary: `${m.summary} (sent by: ${m.senders.join(', ')})`,
      payload: frame(event, { $ref: `#/components/schemas/${m.schema}` }),
    };
    operations[key(`receive.${event}`)] = { action: 'receive', channel: { $ref: '#/channels/v3' }, messages: [{ $ref: `#/channels/v3/messages/${key(event)}` }] };
  }
  const messageRefs = Object.fromEntries(Object.keys(messages).map((k) => [k, { $ref: `#/components/messages/${k}` }]));
  const channel = (address: string, description: string): JsonObject => ({ address, description, messages: messageRefs });
  const schemas = { ...openapi.components.schemas };
  cached = {
    asyncapi: '3.0.0',
    info: {
      title: 'Service Offer Brokering API: real time',
      version: '3.0.0',
      description: 'WebSocket on the API’s own port (docs/realtime.md). Every frame is JSON `{event, data, ref?}`; a reply carries the `ref` of the message it answers.',
    },
    servers: { api: { host: 'localhost:3000', protocol: 'ws', description: 'the API process itself' } },
    channels: {
      v3: channel('/v3', 'The current namespace'),
      v2: channel('/v2', 'Same as /v3 (deprecated)'),
      v1: channel('/v1', 'Same as /v3 (obsolete)'),
    },
    operations,
    components: {
      messages,
      schemas,
      // AsyncAPI 3 security scheme shapes (HTTP Basic is `http` + `scheme: basic`), so @asyncapi/parser accepts them (D19).
      securitySchemes: {
        generator: { type: 'http', scheme: 'basic', description: 'Authorization: Basic, as the HTTP API; needs /oferta' },
        technician: { type: 'httpApiKey', name: 'x-apikey', in: 'header', description: 'its central’s key, plus x-dni-tecnico: <its document>' },
        technicianToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Authorization: Bearer <its own token from POST /tecnicos/token> (D20): the socket is that technician’s alone; closed (4401) within SOCKET_RECHECK_MS once the token is expired or revoked. On (re)connect it receives again `offer.new` for each open offer published to it and not answered, and `service.assigned` for its active service.',
        },
        operator: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Authorization: Bearer, or ?token= for browsers' },
        customer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Authorization: Bearer <tracking token> from POST /tracking/track (D14), or the customer page’s httpOnly cookie from the service’s own Origin (PUBLIC_ORIGIN, D24); never ?tracking= (400). Closed (4401) when the token expires or is revoked (Salir, POST /tracking/revoke).',
        },
      },
    },
  };
  return cached;
}
