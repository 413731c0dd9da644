/**
 * POST /finalize (spec 4.4): Basic or an operator's JWT (`auth:
 * 'basicOrJwt'`; its 401s use the controller envelope `{status: false, msg}`
 * as 4.4 lists them, see src/http/mount.ts).
 */
import { finalizeService as finalize, type FinalizeCaller } from '../../domain/offers/operations/finalize.js';
import { controller, done } from '../document/responses.js';
import { API, operation, type Caller } from '../operation.js';
import { uuidField } from './common.js';
import { named } from '../operation.js';

export const FINALIZE_MESSAGES = {
  ok: 'Servicio finalizado exitosamente',
  missing: 'UUID es requerido',
  notFound: 'Servicio no encontrado',
  internal: 'Ha ocurrido un error interno del servidor, por favor intenta más tarde',
} as const;

export const FinalizeInput = named('FinalizeInput', { type: 'object', required: ['uuid'], properties: { uuid: uuidField } } as const);

function finalizer(caller: Caller): FinalizeCaller {
  if (caller.operator) return { operator: caller.operator };
  if (caller.apiUser) return { apiUser: caller.apiUser };
  throw new Error('operation reached without a caller');
}

export const finalizeService = operation({
  method: 'post',
  path: `${API}/finalize`,
  operationId: 'finalizeService',
  summary: 'Finalize a service (spec 4.4)',
  description: 'HTTP Basic, or an operator’s Bearer JWT. Its 401 uses the controller envelope.',
  tag: 'Servicio',
  auth: 'basicOrJwt',
  envelope: 'controller',
  input: { schema: FinalizeInput, from: 'json' },
  invalid: { message: () => FINALIZE_MESSAGES.missing },
  failure: FINALIZE_MESSAGES.internal,
  wording: { 'offer.not-found': { status: 404, message: FINALIZE_MESSAGES.notFound } },
  responses: {
    200: done('Finalized', FINALIZE_MESSAGES.ok),
    400: controller('uuid missing', { missing: FINALIZE_MESSAGES.missing }),
    403: controller('The service is not in an active state', {}),
    404: controller('Unknown service', { notFound: FINALIZE_MESSAGES.notFound }),
    500: controller('Internal failure', { failure: FINALIZE_MESSAGES.internal }),
  },
  handle: async (rt, caller, input) => {
    await finalize(rt, finalizer(caller), input.uuid);
    return { status: true, msg: FINALIZE_MESSAGES.ok };
  },
});
