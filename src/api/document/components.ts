/**
 * Schemas shared by many routes (D19): the error envelopes of spec section 7,
 * the success bodies' building blocks, and helpers that give every string its
 * maximum length.
 */
import type { JSONSchema } from 'json-schema-to-ts';
import { named } from '../operation.js';

/** A string with its maximum length (every string in the document has one, D19). */
export const str = <const E extends Record<string, unknown>>(maxLength: number, extra?: E) => ({ type: 'string', maxLength, ...extra }) as const;

/** Longest message text the service sends. */
export const MESSAGE_MAX = 2000;
const message = str(MESSAGE_MAX);
const timestamp = str(64, { format: 'date-time' });

/** 7.1 Controller envelope: `{status: false, msg}`, sometimes with data. */
export const ControllerError = named('ControllerError', {
  type: 'object',
  required: ['status', 'msg'],
  properties: { status: { const: false }, msg: message, data: {} },
} as const satisfies JSONSchema);

/** 7.2 System envelope. */
export const SystemError = named('SystemError', {
  type: 'object',
  required: ['error', 'message', 'errorId', 'timestamp'],
  properties: {
    error: { const: true },
    message,
    errorId: str(64, { pattern: '^err_[0-9]{1,16}_[0-9a-f]{1,32}$' }),
    timestamp,
  },
} as const satisfies JSONSchema);

/** 5.2 / 7.3 API key validator envelope. */
export const KeyError = named('KeyError', {
  type: 'object',
  required: ['status', 'msg', 'timestamp'],
  properties: {
    status: { const: false },
    msg: message,
    timestamp,
    allowedEndpoints: { type: 'array', items: str(255) },
    requestedEndpoint: str(255),
  },
} as const satisfies JSONSchema);

/** The data envelope (4.3): the message travels in `data`. */
export const DataAnswer = named('DataAnswer', {
  type: 'object',
  required: ['status', 'data'],
  properties: { status: { type: 'boolean' }, data: message },
} as const satisfies JSONSchema);

/** 7.3 login rate limit. */
export const RateLimited = named('RateLimited', {
  type: 'object',
  required: ['error', 'message', 'retryAfter', 'timestamp'],
  properties: { error: str(200), message, retryAfter: { type: 'integer', minimum: 0 }, timestamp },
} as const satisfies JSONSchema);

/** 4.9 / 7.3 unknown route. */
export const RouteNotFound = named('RouteNotFound', {
  type: 'object',
  required: ['error', 'message', 'documentation', 'available_versions', 'requested_path', 'method', 'timestamp'],
  properties: {
    error: str(100),
    message: str(20000),
    documentation: str(200),
    suggestion: str(500),
    available_versions: {
      type: 'object',
      properties: { v1: str(200), v2: str(200), v3: str(200) },
    },
    requested_path: str(16384),
    method: str(32),
    timestamp,
  },
} as const satisfies JSONSchema);

/** A success with a message: `{status: true, msg}` (4.4, 4.8). */
export const Done = named('Done', {
  type: 'object',
  required: ['status', 'msg'],
  properties: { status: { const: true }, msg: message },
} as const satisfies JSONSchema);

/** Shape 2.3: one response to an offer as the generator sees it. */
export const OfferResponseEntry = named('OfferResponseEntry', {
  type: 'object',
  required: ['distance', 'techCoords', 'tech_names', 'time', 'rate'],
  properties: {
    distance: { type: 'number', description: 'km from the technician to the service point' },
    techCoords: { type: 'object', required: ['latitud', 'longitud'], properties: { latitud: str(32), longitud: str(32) } },
    tech_names: str(255),
    time: { type: 'number', description: 'minutes' },
    rate: { type: 'number' },
  },
} as const satisfies JSONSchema);

export const RESPONSE_SCHEMAS = [ControllerError, SystemError, KeyError, DataAnswer, RateLimited, RouteNotFound, Done, OfferResponseEntry];

/** `$ref` to a component. */
export const ref = (n: { name: string }) => ({ $ref: `#/components/schemas/${n.name}` });
