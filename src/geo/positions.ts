/**
 * A technician's position and availability, reported by its central (PUT
 * /posicion-tecnico, API key) or by the technician over the real-time channel
 * (D10). Takes the validated body and raises DomainErrors; both edges answer
 * in the acceptance endpoint's envelope `{status, data}`
 * (src/http/presenters/positions.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ErrorObject } from 'ajv';
import { Technician, type ApiUser } from '../db/entities/index.js';
import { DomainError } from '../domain/errors.js';
import type { Runtime } from '../domain/ports.js';
import { setTechnicianPosition } from './store.js';

/** The central's API user (the technician is named by dniTecnico), or an authenticated technician. */
export type PositionCaller = ApiUser | { technicianId: number };

export const POSITION_MESSAGES = {
  ok: 'POSICIÓN DEL TÉCNICO ACTUALIZADA',
  notFound: 'NO SE ENCONTRÓ EL TÉCNICO',
  body: 'EL CUERPO DE LA SOLICITUD DEBE SER UN OBJETO JSON',
  dni: "EL CAMPO 'dniTecnico' ES REQUERIDO",
  latitud: "EL CAMPO 'latitud' ES REQUERIDO Y DEBE SER UN NÚMERO ENTRE -90 Y 90",
  longitud: "EL CAMPO 'longitud' ES REQUERIDO Y DEBE SER UN NÚMERO ENTRE -180 Y 180",
  disponible: "EL CAMPO 'disponible' DEBE SER true O false",
  zero: 'LAS COORDENADAS (0, 0) NO SON UNA POSICIÓN VÁLIDA',
  failure: 'ERROR AL ACTUALIZAR LA POSICIÓN DEL TÉCNICO',
} as const;

const coords = {
  latitud: { type: 'number', minimum: -90, maximum: 90 },
  longitud: { type: 'number', minimum: -180, maximum: 180 },
  disponible: { type: 'boolean' },
} as const;

/** A central names its technician. */
export const positionByCentralSchema = {
  type: 'object',
  required: ['dniTecnico', 'latitud', 'longitud'],
  properties: { dniTecnico: { type: 'string', minLength: 1, maxLength: 64 }, ...coords },
} as const;

/** A technician reports itself. */
export const positionByTechnicianSchema = { type: 'object', required: ['latitud', 'longitud'], properties: coords } as const;

export interface PositionInput {
  dniTecnico?: string;
  latitud: number;
  longitud: number;
  disponible?: boolean;
}

/** The message of the first schema failure of a position body. */
export function positionMessage(e: ErrorObject): string {
  const field = e.keyword === 'required' ? String(e.params.missingProperty) : e.instancePath.split('/')[1];
  switch (field) {
    case 'dniTecnico':
      return POSITION_MESSAGES.dni;
    case 'latitud':
      return POSITION_MESSAGES.latitud;
    case 'longitud':
      return POSITION_MESSAGES.longitud;
    case 'disponible':
      return POSITION_MESSAGES.disponible;
    default:
      return POSITION_MESSAGES.body;
  }
}

export async function reportPosition(rt: Runtime, caller: PositionCaller, body: PositionInput): Promise<void> {
  if (body.latitud === 0 && body.longitud === 0) throw new DomainError('position.zero');
  const em = rt.orm.em.fork();
  const tech =
    'technicianId' in caller
      ? await em.findOne(Technician, { id: caller.technicianId })
      : await em.findOne(Technician, { dni: body.dniTecnico, central: { apiUser: caller.id } });
  if (!tech) throw new DomainError('position.technician-not-found');
  const at = new Date();
  await setTechnicianPosition(em, tech.id, { lat: body.latitud, lng: body.longitud }, at, body.disponible);
  if (tech.busyOfferUuid) await tellCustomer(rt, em, tech.busyOfferUuid, { latitud: body.latitud, longitud: body.longitud, fecha: at.toISOString() });
}

/** D14: the customer follows the technician's position while it is on its way (EN_CAMINO). */
async function tellCustomer(rt: Runtime, em: EntityManager, offerUuid: string, position: { latitud: number; longitud: number; fecha: string }): Promise<void> {
  const [offer] = await em.execute<Array<{ state: string; codigo_servicio: string | null }>>(`select state, codigo_servicio from offer where uuid = ?`, [offerUuid]);
  if (offer?.state !== 'EN_CAMINO') return;
  await rt.events
    .publish({ kind: 'customer', offerUuid }, 'service.position', { uuid: offerUuid, expediente: offer.codigo_servicio ?? offerUuid, ...position })
    .catch((err: unknown) => rt.log.warn({ err, uuid: offerUuid }, 'position event not published'));
}
