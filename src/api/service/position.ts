/**
 * PUT /posicion-tecnico (D8): a central reports one of its technicians'
 * position and availability; over the socket (`position`, D10) the same, the
 * central naming the technician by the document of the socket's
 * authentication. Answered in the data envelope `{status, data}`.
 */
import type { ErrorObject } from 'ajv';
import { reportPosition } from '../../geo/positions.js';
import { data } from '../document/responses.js';
import { API, apiUserOf, named, operation } from '../operation.js';

export const POSITION_MESSAGES = {
  ok: 'POSICIÓN DEL TÉCNICO ACTUALIZADA',
  notFound: 'NO SE ENCONTRÓ EL TÉCNICO',
  body: 'EL CUERPO DE LA SOLICITUD DEBE SER UN OBJETO JSON',
  dni: "EL CAMPO 'dniTecnico' ES REQUERIDO",
  latitud: "EL CAMPO 'latitud' ES REQUERIDO Y DEBE SER UN NÚMERO ENTRE -90 Y 90",
  longitud: "EL CAMPO 'longitud' ES REQUERIDO Y DEBE SER UN NÚMERO ENTRE -180 Y 180",
  disponible: "EL CAMPO 'disponible' DEBE SER true O false",
  zero: 'LAS COORDENADAS (0, 0) NO SON UNA POSICIÓN VÁLIDA',
  failure: 'ERROR AL ACTUALIZAR LA POSICIÓN DEL TÉCNICO',
} as const;

const M = POSITION_MESSAGES;

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

/** The message of the first schema failure of a position body. */
export function positionMessage(e: ErrorObject): string {
  const field = e.keyword === 'required' ? String(e.params.missingProperty) : e.instancePath.split('/')[1];
  switch (field) {
    case 'dniTecnico':
      return M.dni;
    case 'latitud':
      return M.latitud;
    case 'longitud':
      return M.longitud;
    case 'disponible':
      return M.disponible;
    default:
      return M.body;
  }
}

export const updatePosition = operation({
  method: 'put',
  path: `${API}/posicion-tecnico`,
  operationId: 'updateTechnicianPosition',
  summary: 'A central reports one of its technicians’ position and availability (D8)',
  tag: 'Servicio',
  auth: 'apiKeyOrTechnician',
  envelope: 'data',
  input: { schema: PositionInput, from: 'json' },
  invalid: { message: positionMessage },
  failure: M.failure,
  responses: {
    200: data('Position updated', { ok: M.ok }, true),
    400: data('Invalid data', { zero: M.zero }),
    404: data('Technician not found among the caller’s', { notFound: M.notFound }),
    500: data('Failure', { failure: M.failure }),
  },
  handle: async (rt, caller, input) => {
    // a technician reporting as itself (its caller) names no one: its own row moves (D8)
    await reportPosition(rt, caller.technician ? { technicianId: caller.technician.id } : apiUserOf(caller), input);
    return { status: true, data: M.ok };
  },
});
