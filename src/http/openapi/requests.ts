/**
 * Request schemas (D19), each named as its component in the OpenAPI document.
 * Every string a client sends has a maxLength; the limits are listed in
 * docs/decisions.md ("API document and limits").
 */
import { acceptanceSchema } from '../../domain/offers/acceptance/acceptance.js';
import { offerSchema } from '../../domain/offers/create/input.js';
import { progressSchema } from '../../domain/offers/operations/progress.js';
import { assignmentSchema, directAssignmentSchema, finalizeSchema, historySchema, stopSchema, withdrawalSchema } from '../schemas/operations.js';
import { named } from './types.js';
import { IDENTITY_LIMITS } from '../../limits.js';

export const OfferInput = named('OfferInput', offerSchema);
export const AcceptanceInput = named('AcceptanceInput', acceptanceSchema);
export const ProgressInput = named('ProgressInput', progressSchema);
export const AssignmentInput = named('AssignmentInput', assignmentSchema);
export const WithdrawalInput = named('WithdrawalInput', withdrawalSchema);
export const FinalizeInput = named('FinalizeInput', finalizeSchema);
export const StopInput = named('StopInput', stopSchema);
export const DirectAssignmentInput = named('DirectAssignmentInput', directAssignmentSchema);
export const HistoryInput = named('HistoryInput', historySchema);

/** GET /offer-responses: the uuid in the JSON body (spec 4.2) or the query string. */
export const OfferResponsesInput = named('OfferResponsesInput', {
  type: 'object',
  required: ['uuid'],
  properties: { uuid: { type: 'string', minLength: 1, maxLength: 64 } },
} as const);

/** PUT /posicion-tecnico (D8): a central reports one of its technicians. */
export const PositionInput = named('PositionInput', {
  type: 'object',
  required: ['dniTecnico', 'latitud', 'longitud'],
  properties: {
    dniTecnico: { type: 'string', minLength: 1, maxLength: 64 },
    latitud: { type: 'number', minimum: -90, maximum: 90 },
    longitud: { type: 'number', minimum: -180, maximum: 180 },
    disponible: { type: 'boolean' },
  },
} as const);

/** POST /users/login and the /admin/login form (D15). */
export const LoginInput = named('LoginInput', {
  type: 'object',
  required: ['username', 'password'],
  properties: {
    username: { type: 'string', minLength: 1, maxLength: IDENTITY_LIMITS.username },
    password: { type: 'string', minLength: 1, maxLength: IDENTITY_LIMITS.password },
  },
} as const);

