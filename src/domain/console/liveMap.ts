/**
 * The operators' live map (issue 31, D23): the technicians with a recent
 * position (free, busy with a service, or not available), the open offers
 * with their window's deadline, and the services whose technician is on the
 * way, with the technician's position and where they go. Two statements,
 * whatever the market's size (at most MAP_LIMIT of each); the socket's
 * `technician.position` and `offer.state` keep it current in the browser.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { offersForMap } from '../../db/stores/offers.js';
import { techniciansForMap } from '../../db/stores/technicians.js';

/** Positions older than this are not drawn (a technician off shift). */
export const MAP_POSITION_MAX_AGE_MS = 12 * 60 * 60 * 1000;
/** At most this many technicians, and this many offers and services. */
export const MAP_LIMIT = 2000;

export type TechnicianStatus = 'libre' | 'ocupado' | 'no-disponible';

export interface MapTechnician {
  id: number;
  nombre: string;
  identificador: string | null;
  central: string;
  estado: TechnicianStatus;
  latitud: number;
  longitud: number;
  fecha: string;
}

export interface MapOffer {
  uuid: string;
  tipo: string;
  generador: string;
  direccion: string | null;
  latitud: number;
  longitud: number;
  cierre: string | null;
}

export interface MapService {
  uuid: string;
  codigoServicio: string | null;
  estado: string;
  tipo: string;
  tecnicoId: number | null;
  tecnico: string | null;
  /** the technician's last position (null when it never reported one) */
  tecnicoPosicion: { latitud: number; longitud: number; fecha: string } | null;
  /** where the technician goes: the service's origin */
  destino: { latitud: number; longitud: number; direccion: string | null };
}

export interface LiveMap {
  generadoEn: string;
  tecnicos: MapTechnician[];
  ofertas: MapOffer[];
  servicios: MapService[];
}

const iso = (v: string | Date | null) => (v == null ? null : new Date(v).toISOString());

export function technicianStatus(t: { available: boolean; busyOfferUuid: string | null }): TechnicianStatus {
  return t.busyOfferUuid ? 'ocupado' : t.available ? 'libre' : 'no-disponible';
}

export async function liveMap(em: EntityManager, now = new Date()): Promise<LiveMap> {
  const [techs, offers] = await Promise.all([techniciansForMap(em, new Date(now.getTime() - MAP_POSITION_MAX_AGE_MS), MAP_LIMIT), offersForMap(em, MAP_LIMIT)]);
  return {
    generadoEn: now.toISOString(),
    tecnicos: techs.map((t) => ({
      id: t.id,
      nombre: t.names,
      identificador: t.identifier,
      central: t.central,
      estado: technicianStatus(t),
      latitud: t.lat,
      longitud: t.lng,
      fecha: iso(t.positionAt)!,
    })),
    ofertas: offers
      .filter((o) => o.state === 'ABIERTA')
      .map((o) => ({ uuid: o.uuid, tipo: o.tipo, generador: o.generador, direccion: o.direccion, latitud: o.originLat, longitud: o.originLng, cierre: iso(o.deadlineAt) })),
    servicios: offers
      .filter((o) => o.state !== 'ABIERTA')
      .map((o) => ({
        uuid: o.uuid,
        codigoServicio: o.codigoServicio,
        estado: o.state,
        tipo: o.tipo,
        tecnicoId: o.technicianId,
        tecnico: o.tecnico,
        tecnicoPosicion: o.techLat != null && o.techLng != null ? { latitud: o.techLat, longitud: o.techLng, fecha: iso(o.techPositionAt)! } : null,
        destino: { latitud: o.originLat, longitud: o.originLng, direccion: o.direccion },
      })),
  };
}
