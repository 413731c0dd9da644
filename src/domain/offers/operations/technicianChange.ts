/**
 * PUT /servicios/{codigoServicio}/tecnico (D20): the assigned central gives
 * its service to another of its technicians (the truck broke down) while
 * ASIGNADA or EN_CAMINO. The new technician must be the central's own,
 * ACTIVO and free (D16: held by no other service). It is a move through the
 * door from the service's state to itself (trigger `cambio-tecnico`, D1's
 * table), so one transaction writes everything: the offer's technician, the
 * old one released and the new one held, the audit row (who changed whom for
 * whom), the generator's state notification (D12, `detalle: "CAMBIO DE
 * TÉCNICO"`, in the delivery log) and, after the commit, the `offer.state`
 * announcement (the customer's page reloads its follow-up, which reads the
 * current technician) and the technicians' `service.released` and
 * `service.assigned`. A refused request changes and sends nothing.
 */
import { LockMode } from '@mikro-orm/core';
import { Central, Offer, Technician, type ApiUser } from '../../../db/entities/index.js';
import { DomainError } from '../../errors.js';
import type { Runtime } from '../../ports.js';
import { serviceAssigned, serviceReleased } from '../../services/events.js';
import { servicio } from '../../services/servicio.js';
import { afterCommit, onCommit } from '../lifecycle/announce.js';
import { transition } from '../lifecycle/moves.js';
import { canMove, refusedMove } from '../lifecycle/stateMachine.js';
import type { OfferState } from '../lifecycle/states.js';

/** The detail of the generator's notice and the motive told to the released technician (D20). */
export const TECHNICIAN_CHANGE = 'CAMBIO DE TÉCNICO';

export interface TechnicianChangeInput {
  codigoServicio: string;
  dniTecnico: string | number;
}

export interface TechnicianChangeOutcome {
  codigoServicio: string;
  estado: OfferState;
  tecnico: { dniTecnico: string; nombre: string };
}

/** Whether a technician may take work (D20): the one place a change of technician reads its status. */
export function technicianActive(t: Pick<Technician, 'status'>): boolean {
  return t.status === 'ACTIVO';
}

export async function changeTechnician(rt: Runtime, caller: ApiUser, input: TechnicianChangeInput): Promise<TechnicianChangeOutcome> {
  const codigoServicio = input.codigoServicio.trim();
  const dni = String(input.dniTecnico).trim();
  return rt.orm.em.fork().transactional(async (em) => {
    const notFound = () => new DomainError('service.not-found', { codigoServicio });
    const offer = await em.findOne(Offer, { codigoServicio }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    const centralId = offer?.assignedCentral?.id;
    if (!offer || centralId === undefined) throw notFound();
    const central = await em.findOneOrFail(Central, centralId);
    // another central's service answers as an unknown one: nobody learns which codes exist
    if (central.apiUser?.id !== caller.id) throw notFound();
    if (!canMove(offer.state, offer.state, 'cambio-tecnico')) throw refusedMove(offer.state, 'cambio-tecnico');
    // locked, so two changes (or a selection) cannot both take the same free technician
    const next = await em.findOne(Technician, { dni, central: central.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!next) throw new DomainError('technician.not-of-central', { dni });
    const previousId = offer.assignedTechnician?.id ?? null;
    if (next.id === previousId) throw new DomainError('technician.already-assigned', { dni });
    if (!technicianActive(next)) throw new DomainError('technician.inactive', { dni });
    if (next.busyOfferUuid != null) throw new DomainError('technician.busy', { dni });
    const previous = previousId === null ? null : await em.findOneOrFail(Technician, previousId);
    await em.populate(offer, ['serviceType']);
    const estado = offer.state;
    await transition(em, offer, {
      to: estado,
      by: 'cambio-tecnico',
      actor: `central:${central.nit}`,
      reassign: { technicianId: next.id },
      detalle: TECHNICIAN_CHANGE,
      detail: { motivo: TECHNICIAN_CHANGE, anterior: previous?.dni ?? null, nuevo: next.dni },
    });
    const s = servicio(offer, { dni: next.dni, names: next.names });
    const messages = [
      ...(previous ? [serviceReleased(previous.id, offer.uuid, offer.codigoServicio ?? null, TECHNICIAN_CHANGE)] : []),
      serviceAssigned(next.id, estado, s),
    ];
    onCommit(em, (rt) => afterCommit(rt, 'technician change events', { uuid: offer.uuid }, () => rt.events.publishMany(messages)));
    return { codigoServicio, estado, tecnico: { dniTecnico: next.dni, nombre: next.names } };
  });
}
