/**
 * The data of the socket's incoming events (D10), as components of the
 * OpenAPI document. Each action's data is its operation's input schema
 * without the identity fields the socket's authentication supplies
 * (dniPrestador, dniTecnico), derived here rather than copied: a field added
 * to the operation's body is a field of the frame, validated the same way on
 * both transports (the socket then runs the operation itself, src/api/invoke.ts).
 */
import { AcceptanceInput } from '../offers/acceptOffer.js';
import { named } from '../operation.js';
import { PositionInput } from '../service/position.js';
import { ProgressInput } from '../service/progress.js';

interface ObjectSchema {
  type: 'object';
  required: readonly string[];
  properties: Record<string, unknown>;
}

/** `schema` without the properties `drop` (and not requiring them); no other field is taken. */
function withoutIdentity<const S extends ObjectSchema, const K extends string>(schema: S, drop: readonly K[]) {
  const keep = (k: string) => !(drop as readonly string[]).includes(k);
  return {
    type: 'object',
    required: schema.required.filter(keep) as Array<Exclude<S['required'][number], K>>,
    additionalProperties: false,
    properties: Object.fromEntries(Object.entries(schema.properties).filter(([k]) => keep(k))) as Omit<S['properties'], K>,
  } as const;
}

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
export const SocketOfferRespond = named('SocketOfferRespond', withoutIdentity(AcceptanceInput.schema, ['dniPrestador', 'dniTecnico']));

/** position: PUT /posicion-tecnico's body without dniTecnico. */
export const SocketPosition = named('SocketPosition', withoutIdentity(PositionInput.schema, ['dniTecnico']));

const progress = ProgressInput.schema.properties;

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
