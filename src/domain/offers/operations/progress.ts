/**
 * Progress of a service (D11): its assigned central (PUT /estado-servicio,
 * API key) or its assigned technician (real-time channel) moves it
 * ASIGNADA → EN_CAMINO → EN_SITIO. Finalizing stays POST /finalize. Reporting
 * the state the service is already in answers 200 and moves nothing. Known
 * coordinates go to the audit row and become the technician's position.
 * Both transports get the same answer: `{status, body: {status, data}}`
 * (the envelope of PUT /aceptacion, spec 4.3); this function never throws.
 */
import { Central, type ApiUser } from '../../../db/entities/index.js';
import { readPoint } from '../../../geo/coordinates.js';
import { setTechnicianPosition } from '../../../geo/store.js';
import { HttpError, acceptanceError } from '../../../http/errors.js';
import { validateBody, type ErrorObject } from '../../../http/validation.js';
import type { Runtime } from '../../../main/runtime.js';
import { announceTransition } from '../lifecycle/announce.js';
import { lockOwnOffer } from '../lifecycle/ownership.js';
import { canMove, transition } from '../lifecycle/stateMachine.js';

export const progressSchema = {
  type: 'object',
  required: ['id', 'estado'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 64 },
    estado: { type: 'string', enum: ['EN_CAMINO', 'EN_SITIO'] },
    latitudTecnico: { anyOf: [{ type: 'number' }, { type: 'string', maxLength: 32 }, { type: 'null' }] },
    longitudTecnico: { anyOf: [{ type: 'number' }, { type: 'string', maxLength: 32 }, { type: 'null' }] },
  },
} as const;

export const PROGRESS_MESSAGES = {
  missingId: "EL CAMPO 'id' ES REQUERIDO PARA ACTUALIZAR EL ESTADO DEL SERVICIO",
  badEstado: "EL CAMPO 'estado' DEBE SER EN_CAMINO O EN_SITIO (LA FINALIZACIÓN SE REGISTRA CON POST /finalize)",
  badCoords: 'LAS COORDENADAS DEL TÉCNICO NO SON VÁLIDAS',
  notFound: 'Oferta no encontrada',
  internal: 'Error al actualizar el estado del servicio',
} as const;

export type ProgressCaller = ApiUser | { technicianId: number };

export interface ProgressAnswer {
  status: number;
  body: { status: boolean; data: string };
}

function inputMessage(e: ErrorObject): string {
  const field = e.keyword === 'required' ? String(e.params.missingProperty) : e.instancePath.slice(1);
  if (field === 'id') return PROGRESS_MESSAGES.missingId;
  if (field === 'estado') return PROGRESS_MESSAGES.badEstado;
  return PROGRESS_MESSAGES.badCoords;
}

async function report(rt: Runtime, caller: ProgressCaller, raw: unknown): Promise<ProgressAnswer> {
  const input = validateBody(progressSchema, raw, inputMessage);
  const position = readPoint(input.latitudTecnico, input.longitudTecnico);
  if (position === 'invalid') throw acceptanceError(400, PROGRESS_MESSAGES.badCoords);
  const out = await rt.orm.em.fork().transactional(async (em) => {
    const offer = await lockOwnOffer(em, input.id, null);
    const centralId = offer?.assignedCentral?.id;
    if (!offer || centralId === undefined) throw acceptanceError(404, PROGRESS_MESSAGES.notFound);
    let actor: string;
    if ('technicianId' in caller) {
      if (offer.assignedTechnician?.id !== caller.technicianId) throw acceptanceError(404, PROGRESS_MESSAGES.notFound);
      actor = `technician:${caller.technicianId}`;
    } else {
      const central = await em.findOneOrFail(Central, centralId);
      if (central.apiUser?.id !== caller.id) throw acceptanceError(404, PROGRESS_MESSAGES.notFound);
      actor = `central:${central.nit}`;
    }
    if (offer.state === input.estado) return { uuid: offer.uuid, generatorId: offer.generator.id, result: null };
    if (!canMove(offer.state, input.estado, 'progreso')) {
      throw acceptanceError(403, `NO ES POSIBLE CAMBIAR EL ESTADO A ${input.estado}: EL SERVICIO ESTÁ EN ESTADO ${offer.state}`);
    }
    const technicianId = offer.assignedTechnician?.id;
    if (position && technicianId !== undefined) await setTechnicianPosition(em, technicianId, position);
    const result = await transition(em, offer, {
      to: input.estado,
      by: 'progreso',
      actor,
      techLat: position?.lat ?? null,
      techLng: position?.lng ?? null,
    });
    return { uuid: offer.uuid, generatorId: offer.generator.id, result };
  });
  if (!out.result) return { status: 200, body: { status: true, data: `EL SERVICIO YA SE ENCUENTRA EN ESTADO ${input.estado}` } };
  await announceTransition(rt, { uuid: out.uuid, generatorId: out.generatorId }, out.result);
  return { status: 200, body: { status: true, data: `ESTADO DEL SERVICIO ACTUALIZADO A ${out.result.to}` } };
}

export async function reportProgress(rt: Runtime, caller: ProgressCaller, input: unknown): Promise<ProgressAnswer> {
  try {
    return await report(rt, caller, input);
  } catch (err) {
    if (err instanceof HttpError) {
      const data = err.body.data ?? err.body.msg;
      return { status: err.status, body: { status: false, data: typeof data === 'string' ? data : err.message } };
    }
    rt.log.error({ err }, 'progress report failed');
    return { status: 500, body: { status: false, data: PROGRESS_MESSAGES.internal } };
  }
}
