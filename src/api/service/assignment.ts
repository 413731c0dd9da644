/**
 * After acceptance, the generator decides (spec 4.8, D6): POST /asignacion
 * confirms the assignment, /no-asignacion withdraws the offer, /cancelacion
 * cancels an assigned service.
 */
import { confirmAssignment as confirm, type AssignmentResult } from '../../domain/offers/operations/assignment.js';
import { cancelService as cancel } from '../../domain/offers/operations/cancellation.js';
import { withdrawOffer as withdraw } from '../../domain/offers/operations/withdrawal.js';
import { str } from '../document/components.js';
import { done } from '../document/responses.js';
import { API, apiUserOf, named, operation } from '../operation.js';
import { fieldMessages } from '../validation.js';
import { operationErrors, text, uuidField, uuidMissing } from './common.js';

export const ASSIGNMENT_MESSAGES = {
  assigned: (central: string) => `SE HA CONFIRMADO LA ASIGNACIÓN DEL SERVICIO A LA CENTRAL ${central}`,
  withdrawn: 'SE HA RECIBIDO EXITOSAMENTE LA NO ASIGNACIÓN DEL SERVICIO',
  cancelled: (central: string) => `SE HA CANCELADO EXITOSAMENTE EL SERVICIO ASIGNADO A LA CENTRAL ${central}`,
  assignmentFailed: 'OCURRIÓ UN ERROR AL PROCESAR LA ASIGNACIÓN DEL SERVICIO',
  withdrawalFailed: 'OCURRIÓ UN ERROR AL PROCESAR LA NO ASIGNACIÓN DEL SERVICIO',
  cancellationFailed: 'OCURRIÓ UN ERROR AL PROCESAR LA CANCELACIÓN DEL SERVICIO',
} as const;

const M = ASSIGNMENT_MESSAGES;
/** the central named in the examples */
const CENTRAL = 'Grúas del Norte';

export const AssignmentInput = named('AssignmentInput', {
  type: 'object',
  required: ['uuid'],
  properties: { uuid: uuidField, observaciones: text(2000), placa: text(20) },
} as const);

export const WithdrawalInput = named('WithdrawalInput', {
  type: 'object',
  required: ['uuid'],
  properties: { uuid: uuidField, motivo: text(1000) },
} as const);

export const assignedBody = (r: AssignmentResult) => ({ status: true, msg: M.assigned(r.centralName), codigoServicio: r.codigoServicio });

export const confirmAssignment = operation({
  method: 'post',
  path: `${API}/asignacion`,
  operationId: 'confirmAssignment',
  summary: 'The generator confirms the assignment of an accepted offer (spec 4.8, D6)',
  tag: 'Servicio',
  auth: 'basic',
  envelope: 'controller',
  input: { schema: AssignmentInput, from: 'json' },
  invalid: { message: fieldMessages({ uuid: uuidMissing('CONFIRMAR LA ASIGNACIÓN DEL SERVICIO') }) },
  failure: M.assignmentFailed,
  responses: {
    200: done('Assignment confirmed, naming the central', M.assigned(CENTRAL), { codigoServicio: str(32) }, { codigoServicio: 'SV-7K3M9Q' }),
    ...operationErrors(M.assignmentFailed),
  },
  handle: async (rt, caller, input) => assignedBody(await confirm(rt, apiUserOf(caller), input)),
});

export const withdrawOffer = operation({
  method: 'post',
  path: `${API}/no-asignacion`,
  operationId: 'withdrawOffer',
  summary: 'The service was not taken: the offer is withdrawn (spec 4.8, D6)',
  tag: 'Servicio',
  auth: 'basic',
  envelope: 'controller',
  input: { schema: WithdrawalInput, from: 'json' },
  invalid: { message: fieldMessages({ uuid: uuidMissing('REGISTRAR LA NO ASIGNACIÓN DEL SERVICIO') }) },
  failure: M.withdrawalFailed,
  responses: {
    200: done('Withdrawn', M.withdrawn),
    ...operationErrors(M.withdrawalFailed),
  },
  handle: async (rt, caller, input) => {
    await withdraw(rt, apiUserOf(caller), input);
    return { status: true, msg: M.withdrawn };
  },
});

export const cancelService = operation({
  method: 'post',
  path: `${API}/cancelacion`,
  operationId: 'cancelService',
  summary: 'Cancel an assigned service (spec 4.8, D6)',
  tag: 'Servicio',
  auth: 'basic',
  envelope: 'controller',
  input: { schema: WithdrawalInput, from: 'json' },
  invalid: { message: fieldMessages({ uuid: uuidMissing('PROCESAR LA CANCELACIÓN DEL SERVICIO') }) },
  failure: M.cancellationFailed,
  responses: {
    200: done('Cancelled, naming the central', M.cancelled(CENTRAL)),
    ...operationErrors(M.cancellationFailed),
  },
  handle: async (rt, caller, input) => ({ status: true, msg: M.cancelled((await cancel(rt, apiUserOf(caller), input)).centralName) }),
});
