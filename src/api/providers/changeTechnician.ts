/**
 * PUT /servicios/{codigoServicio}/tecnico (D20): the assigned central, with
 * its key, gives the service to another of its technicians while ASIGNADA or
 * EN_CAMINO. Answered in the data envelope `{status, data}`, as the central's
 * other key routes (PUT /aceptacion, PUT /estado-servicio): a central's app
 * reads one shape from every route it calls. The rules are the domain's
 * (src/domain/offers/operations/technicianChange.ts).
 */
import type { ErrorObject } from 'ajv';
import { changeTechnician as change } from '../../domain/offers/operations/technicianChange.js';
import { data } from '../document/responses.js';
import { API, apiUserOf, named, operation } from '../operation.js';
import { refusedMoveMessage } from '../refusals.js';

export const TECHNICIAN_CHANGE_MESSAGES = {
  changed: (codigo: string, nombre: string) => `EL SERVICIO ${codigo} QUEDÓ A CARGO DEL TÉCNICO ${nombre}`,
  badDni: "EL CAMPO 'dniTecnico' ES REQUERIDO: EL DOCUMENTO DEL NUEVO TÉCNICO",
  serviceNotFound: 'SERVICIO NO ENCONTRADO',
  technicianNotFound: 'NO SE ENCONTRÓ EL TÉCNICO',
  inactive: 'EL TÉCNICO NO ESTÁ ACTIVO',
  busy: 'EL TÉCNICO TIENE OTRO SERVICIO EN CURSO',
  same: 'EL TÉCNICO YA ESTÁ ASIGNADO A ESTE SERVICIO',
  failure: 'Error al cambiar el técnico del servicio',
} as const;

const M = TECHNICIAN_CHANGE_MESSAGES;

export const TechnicianChangeInput = named('TechnicianChangeInput', {
  type: 'object',
  required: ['dniTecnico'],
  properties: {
    dniTecnico: { type: ['string', 'integer'], minLength: 1, maxLength: 255, pattern: '\\S' },
  },
} as const);

/** Any failure of the body names its one field. */
export function technicianChangeMessage(_e: ErrorObject): string {
  return M.badDni;
}

export const changeTechnician = operation({
  method: 'put',
  path: `${API}/servicios/{codigoServicio}/tecnico`,
  operationId: 'changeTechnician',
  summary: 'The assigned central changes the technician of its service (D20)',
  description:
    'While ASIGNADA or EN_CAMINO. The new technician must be the central’s own, ACTIVO and free. The old technician receives `service.released` (motivo "CAMBIO DE TÉCNICO"), the new one `service.assigned` with `servicio`; the generator gets a state notification at `api_endpoint.estado` with the same `estado` and `detalle: "CAMBIO DE TÉCNICO"`; the customer’s follow-up shows the new technician. A service of another central answers as an unknown one (404).',
  tag: 'Servicio',
  auth: 'apiKey',
  envelope: 'data',
  pathParams: { codigoServicio: { description: 'the service’s code (D6)', maxLength: 64 } },
  input: { schema: TechnicianChangeInput, from: 'json' },
  invalid: { message: technicianChangeMessage },
  failure: M.failure,
  responses: {
    200: data('The technician was changed', { changed: M.changed('SRV-7K2M9Q', 'Pedro Gómez') }, true),
    400: data('Invalid data, or the technician is inactive, busy with another service or already this service’s', {
      badDni: M.badDni,
      inactive: M.inactive,
      busy: M.busy,
      same: M.same,
    }),
    403: data('The service is not ASIGNADA or EN_CAMINO', { refused: refusedMoveMessage({ state: 'EN_SITIO', operation: 'cambio-tecnico' }) }),
    404: data('No such service assigned to the caller’s central, or no such technician of that central', {
      service: M.serviceNotFound,
      technician: M.technicianNotFound,
    }),
    500: data('Failure', { failure: M.failure }),
  },
  handle: async (rt, caller, input) => {
    const { codigoServicio } = input as typeof input & { codigoServicio: string };
    const out = await change(rt, apiUserOf(caller), { codigoServicio, dniTecnico: input.dniTecnico });
    return { status: true, data: M.changed(out.codigoServicio, out.tecnico.nombre) };
  },
});
