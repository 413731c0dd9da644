/**
 * PUT /estado-servicio (D11): the assigned central (its key) or, over the
 * socket (`progress`, D10), the assigned technician reports EN_CAMINO or
 * EN_SITIO; answered in the data envelope `{status, data}` as PUT /aceptacion.
 */
import type { ErrorObject } from 'ajv';
import { reportServiceProgress, type ProgressOutcome } from '../../domain/offers/operations/progress.js';
import type { OfferState } from '../../domain/offers/lifecycle/states.js';
import { data } from '../document/responses.js';
import { API, apiUserOf, named, operation } from '../operation.js';
import { refusedMoveMessage } from '../refusals.js';

export const PROGRESS_MESSAGES = {
  missingId: "EL CAMPO 'id' ES REQUERIDO PARA ACTUALIZAR EL ESTADO DEL SERVICIO",
  badEstado: "EL CAMPO 'estado' DEBE SER EN_CAMINO O EN_SITIO (LA FINALIZACIÓN SE REGISTRA CON POST /finalize)",
  badCoords: 'LAS COORDENADAS DEL TÉCNICO NO SON VÁLIDAS',
  notFound: 'Oferta no encontrada',
  internal: 'Error al actualizar el estado del servicio',
  updated: (state: OfferState) => `ESTADO DEL SERVICIO ACTUALIZADO A ${state}`,
  already: (state: OfferState) => `EL SERVICIO YA SE ENCUENTRA EN ESTADO ${state}`,
} as const;

const M = PROGRESS_MESSAGES;
const techCoord = { anyOf: [{ type: 'number' }, { type: 'string', maxLength: 32 }, { type: 'null' }] } as const;

export const ProgressInput = named('ProgressInput', {
  type: 'object',
  required: ['id', 'estado'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 64 },
    estado: { type: 'string', maxLength: 20, enum: ['EN_CAMINO', 'EN_SITIO'] },
    latitudTecnico: techCoord,
    longitudTecnico: techCoord,
  },
} as const);

/** The message of the first schema failure of a progress body. */
export function progressMessage(e: ErrorObject): string {
  const field = e.keyword === 'required' ? String(e.params.missingProperty) : e.instancePath.slice(1);
  if (field === 'id') return M.missingId;
  if (field === 'estado') return M.badEstado;
  return M.badCoords;
}

export function progressBody(outcome: ProgressOutcome): { status: true; data: string } {
  return { status: true, data: outcome.moved ? M.updated(outcome.state) : M.already(outcome.state) };
}

export const reportProgress = operation({
  method: 'put',
  path: `${API}/estado-servicio`,
  operationId: 'reportProgress',
  summary: 'The assigned central reports progress: EN_CAMINO, EN_SITIO (D11)',
  tag: 'Servicio',
  auth: 'apiKeyOrTechnician',
  envelope: 'data',
  input: { schema: ProgressInput, from: 'json' },
  invalid: { message: progressMessage },
  failure: M.internal,
  wording: { 'offer.not-found': { status: 404, message: M.notFound } },
  responses: {
    200: data('State updated (or already that state)', { updated: M.updated('EN_CAMINO') }, true),
    400: data('Invalid data', { badEstado: M.badEstado }),
    403: data('The service cannot move to that state', { refused: refusedMoveMessage({ state: 'FINALIZADA', operation: 'progreso', to: 'EN_SITIO' }) }),
    404: data('Offer not found (or not assigned to the caller)', { notFound: M.notFound }),
    500: data('Failure', { failure: M.internal }),
  },
  // over the socket the technician reports as itself (D11)
  handle: async (rt, caller, input) =>
    progressBody(await reportServiceProgress(rt, caller.technician ? { technicianId: caller.technician.id } : apiUserOf(caller), input)),
});
