/**
 * GET /api/v3/centrales/servicios (D20): a central reads its work. The
 * services are the offers assigned to one of the calling API user's centrals,
 * newest first, PAGE_SIZE a page, each with its `servicio`, state, central,
 * technician and timeline (its moves, D1). Set-based: one statement for the
 * page (with the total), one for the moves of the page's offers, whatever the
 * page's size.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { offsetOfPage } from '../paging.js';
import { centralServicesPage, type CentralServiceRow } from '../../db/stores/offers.js';
import { transitionsOfOffers } from '../../db/stores/transitions.js';
import { servicio, type Servicio } from './servicio.js';

export const PAGE_SIZE = 50;

export interface CentralServiceView {
  uuid: string;
  codigoServicio: string | null;
  codigoSolicitud: string | null;
  estado: string;
  creadaEn: string;
  central: { nit: string; nombre: string };
  tecnico: { dniTecnico: string; nombre: string } | null;
  servicio: Servicio;
  /** its moves, in the order made */
  timeline: Array<{ anterior: string | null; estado: string; fecha: string }>;
}

function view(r: CentralServiceRow, timeline: CentralServiceView['timeline']): CentralServiceView {
  const technician = r.technicianDni === null ? null : { dni: r.technicianDni, names: r.technicianNames ?? '' };
  return {
    uuid: r.uuid,
    codigoServicio: r.codigoServicio,
    codigoSolicitud: r.codigoSolicitud,
    estado: r.state,
    creadaEn: r.createdAt.toISOString(),
    central: { nit: r.centralNit, nombre: r.centralName },
    tecnico: technician ? { dniTecnico: technician.dni, nombre: technician.names } : null,
    servicio: servicio({ ...r, stops: r.stops ?? [], serviceType: { id: r.serviceTypeId, type: r.serviceTypeName } }, technician),
    timeline,
  };
}

export async function centralServices(
  em: EntityManager,
  apiUserId: number,
  q: { estado?: string; page: number },
): Promise<{ page: number; pageSize: number; total: number; servicios: CentralServiceView[] }> {
  const offset = offsetOfPage(q.page, PAGE_SIZE); // LIM-6: a page too deep is refused before any query
  const { rows, total } = await centralServicesPage(em, apiUserId, q.estado ?? null, PAGE_SIZE, offset);
  const moves = await transitionsOfOffers(em, rows.map((r) => r.uuid));
  const byOffer = new Map<string, CentralServiceView['timeline']>();
  for (const m of moves) {
    let list = byOffer.get(m.offer_uuid);
    if (!list) byOffer.set(m.offer_uuid, (list = []));
    list.push({ anterior: m.from_state, estado: m.to_state, fecha: new Date(m.at).toISOString() });
  }
  return { page: q.page, pageSize: PAGE_SIZE, total, servicios: rows.map((r) => view(r, byOffer.get(r.uuid) ?? [])) };
}
