/**
 * The data of the socket's incoming events (D10), as components of the
 * OpenAPI document. Each is built from the fields of the HTTP body of the
 * same operation, so a payload is validated the same way over HTTP and over
 * the socket (e.g. tiempoLlegadaSitio 0–1440 on both); only the identity
 * fields (dniPrestador, dniTecnico) come from the socket's authentication, and
 * no other field is taken.
 */
import { str } from './components.js';
import { AcceptanceInput, PositionInput, ProgressInput } from './requests.js';
import { named } from './types.js';

const accept = AcceptanceInput.schema.properties;
const position = PositionInput.schema.properties;
const progress = ProgressInput.schema.properties;

/** `{event, data, ref?}` */
export const SocketFrame = named('SocketFrame', {
  type: 'object',
  required: ['event'],
  additionalProperties: false,
  properties: {
    event: { type: 'string', minLength: 1, maxLength: 64 },
    data: {},
    ref: { type: 'string', minLength: 1, maxLength: 64 },
  },
} as const);

export const SocketPing = named('SocketPing', { type: 'object', additionalProperties: false, properties: {} } as const);

/** offer.respond: PUT /aceptacion's body without the identity fields. */
export const SocketOfferRespond = named('SocketOfferRespond', {
  type: 'object',
  required: ['id'],
  additionalProperties: false,
  properties: {
    id: accept.id,
    tiempoLlegadaSitio: accept.tiempoLlegadaSitio,
    latitudTecnico: accept.latitudTecnico,
    longitudTecnico: accept.longitudTecnico,
  },
} as const);

/** position: PUT /posicion-tecnico's body without dniTecnico. */
export const SocketPosition = named('SocketPosition', {
  type: 'object',
  required: ['latitud', 'longitud'],
  additionalProperties: false,
  properties: { latitud: position.latitud, longitud: position.longitud, disponible: position.disponible },
} as const);

/**
 * progress: PUT /estado-servicio's body, except that `estado` is any short
 * text here: a state the service cannot take is answered by the operation in
 * progress.result (400 with its message), as the socket always did.
 */
export const SocketProgress = named('SocketProgress', {
  type: 'object',
  required: ['id', 'estado'],
  additionalProperties: false,
  properties: { id: progress.id, estado: { type: 'string', minLength: 1, maxLength: 40 }, latitudTecnico: progress.latitudTecnico, longitudTecnico: progress.longitudTecnico },
} as const);

export const SOCKET_SCHEMAS = [SocketFrame, SocketPing, SocketOfferRespond, SocketPosition, SocketProgress];

