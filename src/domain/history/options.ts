/**
 * GET /queries/history-options (D7): the values the history filters take.
 * serviceStatus are the D1 states, taskStatus the states of a technician's
 * task (from assignment to its end), businessNits the centrals.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Central } from '../../db/entities/index.js';
import { OFFER_STATES, type OfferState } from '../offers/lifecycle/states.js';

const STATE_NAMES: Record<OfferState, string> = {
  ABIERTA: 'Abierta (en evaluación)',
  SIN_RESPUESTA: 'Sin respuesta',
  EXPIRADA: 'Expirada',
  ACEPTADA: 'Aceptada',
  ASIGNADA: 'Asignada',
  EN_CAMINO: 'En camino',
  EN_SITIO: 'En sitio',
  FINALIZADA: 'Finalizada',
  CANCELADA: 'Cancelada',
  NO_ASIGNADA: 'No asignada',
  INACTIVA: 'Inactiva',
};

export const TASK_STATES: readonly OfferState[] = ['ASIGNADA', 'EN_CAMINO', 'EN_SITIO', 'FINALIZADA', 'CANCELADA'];

export interface HistoryOptions {
  taskStatus: Array<{ id: string; name: string }>;
  serviceStatus: Array<{ id: string; name: string }>;
  businessNits: Array<{ nit: string; name: string }>;
}

export async function historyOptions(em: EntityManager): Promise<HistoryOptions> {
  const centrals = await em.find(Central, {}, { orderBy: { name: 'asc', nit: 'asc' } });
  return {
    taskStatus: TASK_STATES.map((id) => ({ id, name: STATE_NAMES[id] })),
    serviceStatus: OFFER_STATES.map((id) => ({ id, name: STATE_NAMES[id] })),
    businessNits: centrals.map((c) => ({ nit: c.nit, name: c.name })),
  };
}
