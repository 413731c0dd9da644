/**
 * Request bodies of the service operations (D6, D7). Unknown fields are
 * ignored, as the spec's clients send more than each endpoint reads.
 */
import type { ErrorObject } from 'ajv';
import { DIRECT_MESSAGES } from '../../domain/offers/operations/directAssignment.js';
import { offerErrorMessage, offerSchema } from '../../domain/offers/create/input.js';
import { OFFER_STATES } from '../../domain/offers/lifecycle/states.js';
import { MAX_PAGE, MAX_PAGE_SIZE } from '../../domain/history/history.js';

const text = (max: number) => ({ type: 'string', maxLength: max }) as const;
const uuidField = { type: 'string', minLength: 1, maxLength: 64 } as const;
/** A number, a numeric string, or empty (null, '' or 0: missing, spec 2.1). */
const coordinate = { anyOf: [{ type: 'number' }, { type: 'string', maxLength: 32 }, { type: 'null' }] } as const;

export const assignmentSchema = {
  type: 'object',
  required: ['uuid'],
  properties: { uuid: uuidField, observaciones: text(2000), placa: text(20) },
} as const;

export const withdrawalSchema = {
  type: 'object',
  required: ['uuid'],
  properties: { uuid: uuidField, motivo: text(1000) },
} as const;

export const finalizeSchema = {
  type: 'object',
  required: ['uuid'],
  properties: { uuid: uuidField },
} as const;

export const stopSchema = {
  type: 'object',
  required: ['uuid'],
  properties: { uuid: uuidField, direccion: text(500), latitud: coordinate, longitud: coordinate, puntoReferencia: text(500) },
} as const;

/** The body of POST /oferta (spec 2.1, same order of checks) plus the central's and technician's tax ids. */
export const directAssignmentSchema = {
  type: 'object',
  allOf: [
    ...offerSchema.allOf,
    {
      required: ['dniPrestador'],
      properties: {
        dniPrestador: { type: 'string', minLength: 1, maxLength: 32 },
        dniTecnico: { type: 'string', minLength: 1, maxLength: 32 },
      },
    },
  ],
} as const;

/** The messages of POST /oferta (spec 4.1), and those of the tax ids. */
export function directAssignmentMessage(e: ErrorObject): string {
  const field = fieldOf(e);
  if (field === 'dniPrestador') return e.keyword === 'required' ? DIRECT_MESSAGES.centralMissing : DIRECT_MESSAGES.centralInvalid;
  if (field === 'dniTecnico') return DIRECT_MESSAGES.technicianInvalid;
  return offerErrorMessage(e);
}

export const historySchema = {
  type: 'object',
  required: ['line'],
  properties: {
    line: { type: 'string', minLength: 1, maxLength: 64 },
    autNumber: { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'string', maxLength: 64 }] },
    estado: { type: 'string', maxLength: 20, enum: OFFER_STATES },
    desde: { type: 'string', maxLength: 40, anyOf: [{ format: 'date' }, { format: 'date-time' }] },
    hasta: { type: 'string', maxLength: 40, anyOf: [{ format: 'date' }, { format: 'date-time' }] },
    // bounded so that (page - 1) * pageSize stays an exact bigint offset
    page: { type: 'integer', minimum: 1, maximum: MAX_PAGE },
    pageSize: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE },
  },
} as const;

/** The property an error is about. */
export function fieldOf(e: ErrorObject): string {
  if (e.keyword === 'required') return String(e.params.missingProperty);
  return e.instancePath.split('/')[1] ?? '';
}

type FieldMessage = string | ((e: ErrorObject) => string);

/** Message of a failed body: `messages[field]` when given (e.g. the spec's "missing uuid"), else a generic one. */
export function fieldMessages(messages: Record<string, FieldMessage>) {
  return (e: ErrorObject): string => {
    const field = fieldOf(e);
    const m = messages[field];
    if (typeof m === 'function') return m(e);
    return m ?? (field ? `EL CAMPO '${field}' NO ES VÁLIDO` : 'EL CUERPO DE LA SOLICITUD DEBE SER UN OBJETO JSON');
  };
}
