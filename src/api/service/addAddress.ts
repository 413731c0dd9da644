/** POST /add-address (spec 4.8): a stop added to a service. */
import { STOP_MESSAGES, addStop } from '../../domain/offers/operations/stops.js';
import { msg } from '../document/responses.js';
import { API, apiUserOf, named, operation } from '../operation.js';
import { fieldMessages } from '../validation.js';
import { coordinate, operationErrors, text, uuidField, uuidMissing } from './common.js';

const FAILURE = 'OCURRIÓ UN ERROR AL AGREGAR LA DIRECCIÓN DEL SERVICIO';

export const StopInput = named('StopInput', {
  type: 'object',
  required: ['uuid'],
  properties: { uuid: uuidField, direccion: text(500), latitud: coordinate, longitud: coordinate, puntoReferencia: text(500) },
} as const);

export const addAddress = operation({
  method: 'post',
  path: `${API}/add-address`,
  operationId: 'addAddress',
  summary: 'Add a stop to a service (spec 4.8)',
  tag: 'Servicio',
  auth: 'basic',
  envelope: 'controller',
  input: { schema: StopInput, from: 'json' },
  invalid: { message: fieldMessages({ uuid: uuidMissing('AGREGAR LA DIRECCIÓN') }) },
  failure: FAILURE,
  responses: {
    200: {
      description: 'Stop added; every stop of the service',
      schema: {
        type: 'object',
        required: ['status', 'msg', 'data'],
        properties: { status: { const: true }, msg, data: { type: 'object', required: ['stops'], properties: { stops: { type: 'array' } } } },
      },
      examples: { ok: { status: true, msg: STOP_MESSAGES.ok, data: { stops: [] } } },
    },
    ...operationErrors(FAILURE),
  },
  handle: async (rt, caller, input) => ({ status: true, msg: STOP_MESSAGES.ok, data: { stops: (await addStop(rt, apiUserOf(caller), input)).stops } }),
});
