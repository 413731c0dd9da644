/**
 * Progress of a service (D11): its assigned central (PUT /estado-servicio,
 * API key) or its assigned technician (real-time channel) moves it
 * ASIGNADA → EN_CAMINO → EN_SITIO. Finalizing stays POST /finalize. Reporting
 * the state the service is already in moves nothing. Known coordinates go to
 * the audit row and become the technician's position. Takes the validated
 * body, returns the state the service is in and raises DomainErrors; both
 * transports shape the answer the same way (the envelope of PUT /aceptacion,
 * spec 4.3: src/api/service/progress.ts).
 */
import { Central, type ApiUser } from '../../../db/entities/index.js';
import { readPoint } from '../../../geo/coordinates.js';
import { setTechnicianPosition } from '../../../geo/store.js';
import type { Runtime } from '../../ports.js';
import { DomainError } from '../../errors.js';
import { lockOwnOffer } from '../lifecycle/ownership.js';
import { canMove, refusedMove } from '../lifecycle/stateMachine.js';
import { transition } from '../lifecycle/moves.js';
import type { OfferState } from '../lifecycle/states.js';

/** PUT /estado-servicio's validated body (its schema and wording: src/api/service/progress.ts). */
export interface ProgressInput {
  id: string;
  estado: 'EN_CAMINO' | 'EN_SITIO';
  latitudTecnico?: number | string | null;
  longitudTecnico?: number | string | null;
}

export type ProgressCaller = ApiUser | { technicianId: number };

/** The state the service is in after the report, and whether this report moved it. */
export interface ProgressOutcome {
  state: OfferState;
  moved: boolean;
}

export async function reportServiceProgress(rt: Runtime, caller: ProgressCaller, input: ProgressInput): Promise<ProgressOutcome> {
  const position = readPoint(input.latitudTecnico, input.longitudTecnico);
  if (position === 'invalid') throw new DomainError('progress.coordinates-invalid');
  const out = await rt.orm.em.fork().transactional(async (em) => {
    const offer = await lockOwnOffer(em, input.id, null);
    const centralId = offer?.assignedCentral?.id;
    if (!offer || centralId === undefined) throw new DomainError('offer.not-found', { uuid: input.id });
    let actor: string;
    if ('technicianId' in caller) {
      if (offer.assignedTechnician?.id !== caller.technicianId) throw new DomainError('offer.not-found', { uuid: input.id });
      actor = `technician:${caller.technicianId}`;
    } else {
      const central = await em.findOneOrFail(Central, centralId);
      if (central.apiUser?.id !== caller.id) throw new DomainError('offer.not-found', { uuid: input.id });
      actor = `central:${central.nit}`;
    }
    if (offer.state === input.estado) return { uuid: offer.uuid, generatorId: offer.generator.id, result: null };
    if (!canMove(offer.state, input.estado, 'progreso')) throw refusedMove(offer.state, 'progreso', input.estado);
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
  if (!out.result) return { state: input.estado, moved: false };
  return { state: out.result.to, moved: true };
}
