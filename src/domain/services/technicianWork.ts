/**
 * A technician's own work (D20): the offers still open that were published to
 * it and that its central has not answered, each as `offer.new` carries it
 * (with the technician's distance), and the service it is doing, as
 * `service.assigned` carries it. Read by GET /tecnicos/servicios and replayed
 * to a technician's socket when it (re)connects.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { activeServiceOfTechnician } from '../../db/stores/offers.js';
import { openOffersOfTechnician } from '../../db/stores/recipients.js';
import type { BusMessage } from '../ports.js';
import { offerFields, type OfferFields } from '../distribution/payload.js';
import { serviceAssigned } from './events.js';
import { servicio, type Servicio } from './servicio.js';

export interface ActiveService {
  uuid: string;
  codigoServicio: string | null;
  estado: string;
  servicio: Servicio;
}

export interface TechnicianWork {
  /** open offers not answered, oldest first, as `offer.new` */
  ofertas: Array<OfferFields & { distance: number }>;
  /** the service it is doing, or null */
  servicio: ActiveService | null;
}

export async function technicianWork(em: EntityManager, technicianId: number): Promise<TechnicianWork> {
  const [rows, offer] = [await openOffersOfTechnician(em, technicianId), await activeServiceOfTechnician(em, technicianId)];
  const ofertas = rows.map((r) => ({
    ...offerFields({ ...r, serviceType: { id: r.serviceTypeId } }),
    distance: Number(r.distanceKm),
  }));
  const tech = offer?.assignedTechnician ?? null;
  const active = offer
    ? { uuid: offer.uuid, codigoServicio: offer.codigoServicio ?? null, estado: offer.state, servicio: servicio(offer, tech ? { dni: tech.dni, names: tech.names } : null) }
    : null;
  return { ofertas, servicio: active };
}

/**
 * What a (re)connecting technician socket receives again (D20): `offer.new`
 * for each open offer not answered, then `service.assigned` for its service;
 * the caller publishes them to that one socket.
 */
export async function technicianResync(em: EntityManager, technicianId: number): Promise<BusMessage[]> {
  const work = await technicianWork(em, technicianId);
  const audience = { kind: 'technician' as const, technicianId };
  const out: BusMessage[] = work.ofertas.map((o) => ({ audience, event: 'offer.new', data: o }));
  if (work.servicio) out.push(serviceAssigned(technicianId, work.servicio.estado, work.servicio.servicio));
  return out;
}
