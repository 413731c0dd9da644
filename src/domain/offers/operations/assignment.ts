/**
 * POST /asignacion (D6): the generator completes the assignment of an
 * accepted offer: ACEPTADA → ASIGNADA with the selected central and
 * technician, the plate and remarks recorded, the service codes given.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Central, OfferResponse, Technician, type ApiUser, type Offer } from '../../../db/entities/index.js';
import type { Runtime } from '../../ports.js';
import { lockOwnOffer, offerNotFound } from '../lifecycle/ownership.js';
import { canMove, refusedMove } from '../lifecycle/stateMachine.js';
import { transition } from '../lifecycle/moves.js';

export interface AssignmentInput {
  uuid: string;
  observaciones?: string;
  placa?: string;
}

export interface AssignmentResult {
  centralName: string;
  codigoServicio: string;
}

/** The central and technician the selection chose: set on the offer, or those of its accepted response. */
async function selection(em: EntityManager, offer: Offer): Promise<{ central: Central; technician: Technician | null }> {
  const response = offer.acceptedResponse !== null && offer.acceptedResponse !== undefined
    ? await em.findOne(OfferResponse, offer.acceptedResponse)
    : null;
  const centralId = offer.assignedCentral?.id ?? response?.central.id;
  if (centralId === undefined) throw new Error(`offer ${offer.uuid} is ACEPTADA without a selected central`);
  const technicianId = offer.assignedTechnician?.id ?? response?.technician.id;
  return {
    central: await em.findOneOrFail(Central, centralId),
    technician: technicianId === undefined ? null : await em.findOneOrFail(Technician, technicianId),
  };
}

export async function confirmAssignment(rt: Runtime, user: ApiUser, input: AssignmentInput): Promise<AssignmentResult> {
  const out = await rt.orm.em.transactional(async (em) => {
    const offer = await lockOwnOffer(em, input.uuid, user.id);
    if (!offer) throw offerNotFound();
    if (!canMove(offer.state, 'ASIGNADA', 'asignacion')) throw refusedMove(offer.state, 'asignacion');
    const { central, technician } = await selection(em, offer);
    offer.assignedCentral = central;
    offer.assignedTechnician = technician;
    if (input.placa !== undefined) offer.placa = input.placa;
    if (input.observaciones !== undefined) offer.observacionesAsignacion = input.observaciones;
    await transition(em, offer, {
      to: 'ASIGNADA',
      by: 'asignacion',
      actor: `api-user:${user.username}`,
      detail: { central: central.nit, placa: input.placa ?? null },
    });
    return { uuid: offer.uuid, centralName: central.name, codigoServicio: offer.codigoServicio as string };
  });
  return { centralName: out.centralName, codigoServicio: out.codigoServicio };
}
