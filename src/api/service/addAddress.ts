/** POST /add-address (spec 4.8): a stop added to a service. */
import { addStop } from '../../domain/offers/operations/stops.js';
import type { JSONSchema } from 'json-schema-to-ts';
import { str } from '../document/components.js';
import { geocoderUnavailable, msg, nullable } from '../document/responses.js';
import { GEOCODER_UNAVAILABLE } from '../../geocoding/geocoder.js';
import { API, apiUserOf, named, operation } from '../operation.js';
import { fieldMessages } from '../validation.js';
import { coordinate, operationErrors, text, uuidField, uuidMissing } from './common.js';

export const STOP_MESSAGES = {
  ok: 'SE HA AGREGADO EXITOSAMENTE LA DIRECCIÓN AL SERVICIO',
  missingPlace: 'ES NECESARIO LA DIRECCIÓN O LAS COORDENADAS DE LA PARADA',
  badCoords: 'LAS COORDENADAS DE LA PARADA NO SON VÁLIDAS',
  notGeocoded: 'LA DIRECCIÓN DE LA PARADA NO FUE POSIBLE IDENTIFICARLA, POR FAVOR VERIFICA LOS DATOS',
  tooMany: (max: number) => `EL SERVICIO YA TIENE EL MÁXIMO DE ${max} PARADAS PERMITIDAS`,
} as const;

const FAILURE = 'OCURRIÓ UN ERROR AL AGREGAR LA DIRECCIÓN DEL SERVICIO';
const date = str(64, { format: 'date-time' });

/** One stop of a service, as POST /add-address stores and answers it (db Stop). */
const STOP = {
  type: 'object',
  required: ['direccion', 'latitud', 'longitud', 'puntoReferencia', 'ciudad', 'departamento', 'addedAt'],
  properties: {
    direccion: nullable(str(500)),
    latitud: { type: 'number' },
    longitud: { type: 'number' },
    puntoReferencia: nullable(str(500)),
    ciudad: nullable(str(255)),
    departamento: nullable(str(255)),
    addedAt: date,
  },
} as const satisfies JSONSchema;


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
        properties: { status: { const: true }, msg, data: { type: 'object', required: ['stops'], properties: { stops: { type: 'array', items: STOP } } } },
      },
      examples: { ok: { status: true, msg: STOP_MESSAGES.ok, data: { stops: [] } } },
    },
    ...operationErrors(FAILURE),
    503: geocoderUnavailable(GEOCODER_UNAVAILABLE),
  },
  handle: async (rt, caller, input) => ({ status: true, msg: STOP_MESSAGES.ok, data: { stops: (await addStop(rt, apiUserOf(caller), input)).stops } }),
});
