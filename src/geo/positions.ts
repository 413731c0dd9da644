/**
 * A technician's position and availability, reported by its central (PUT
 * /posicion-tecnico, API key) or by the technician over the real-time channel
 * (D10). Takes the validated body and raises DomainErrors; both transports
 * answer in the data envelope `{status, data}` (src/api/service/position.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Technician, type ApiUser } from '../db/entities/index.js';
import { offerStateAndCode } from '../db/stores/offers.js';
import { loadTechnicianOfApiUser, setTechnicianPosition } from '../db/stores/technicians.js';
import { DomainError } from '../domain/errors.js';
import type { Runtime } from '../domain/ports.js';

/** The central's API user (the technician is named by dniTecnico), or an authenticated technician. */
export type PositionCaller = ApiUser | { technicianId: number };

/** PUT /posicion-tecnico's validated body (its schema and wording: src/api/service/position.ts). */
export interface PositionInput {
  dniTecnico?: string;
  latitud: number;
  longitud: number;
  disponible?: boolean;
}

export async function reportPosition(rt: Runtime, caller: PositionCaller, body: PositionInput): Promise<void> {
  if (body.latitud === 0 && body.longitud === 0) throw new DomainError('position.zero');
  const em = rt.orm.em.fork();
  const tech =
    'technicianId' in caller
      ? await em.findOne(Technician, { id: caller.technicianId })
      : await loadTechnicianOfApiUser(em, body.dniTecnico, caller.id);
  if (!tech) throw new DomainError('position.technician-not-found');
  const at = new Date();
  await setTechnicianPosition(em, tech.id, { lat: body.latitud, lng: body.longitud }, at, body.disponible);
  const position = { latitud: body.latitud, longitud: body.longitud, fecha: at.toISOString() };
  await Promise.all([
    tellOperators(rt, tech, body.disponible ?? tech.available, position),
    tech.busyOfferUuid ? tellCustomer(rt, em, tech.busyOfferUuid, position) : undefined,
  ]);
}

/** D23: the operators' live map moves the technician (its status as the map's `estado`). */
async function tellOperators(rt: Runtime, tech: Technician, available: boolean, position: { latitud: number; longitud: number; fecha: string }): Promise<void> {
  const estado = tech.busyOfferUuid ? 'ocupado' : available ? 'libre' : 'no-disponible';
  await rt.events
    .publish({ kind: 'operators' }, 'technician.position', { tecnicoId: tech.id, estado, ...position })
    .catch((err: unknown) => rt.log.warn({ err, technicianId: tech.id }, 'position event to operators not published'));
}

/** D14: the customer follows the technician's position while it is on its way (EN_CAMINO). */
async function tellCustomer(rt: Runtime, em: EntityManager, offerUuid: string, position: { latitud: number; longitud: number; fecha: string }): Promise<void> {
  const offer = await offerStateAndCode(em, offerUuid);
  if (offer?.state !== 'EN_CAMINO') return;
  await rt.events
    .publish({ kind: 'customer', offerUuid }, 'service.position', { uuid: offerUuid, expediente: offer.codigo_servicio ?? offerUuid, ...position })
    .catch((err: unknown) => rt.log.warn({ err, uuid: offerUuid }, 'position event not published'));
}
