/**
 * A technician's position and availability, reported by its central (PUT
 * /posicion-tecnico, API key) or by the technician over the real-time channel
 * (D10). Answers with the acceptance endpoint's envelope `{status, data}`
 * instead of throwing, so both edges can send it as it is.
 */
import type { ErrorObject } from 'ajv';
import { Technician, type ApiUser } from '../db/entities/index.js';
import type { Runtime } from '../main/runtime.js';
import { compile } from '../http/validation.js';
import { findUnstorableText, unstorableTextMessage } from '../text.js';
import { setTechnicianPosition } from './store.js';

/** The central's API user (the technician is named by dniTecnico), or an authenticated technician. */
export type PositionCaller = ApiUser | { technicianId: number };

export interface PositionReply {
  status: number;
  body: Record<string, unknown>;
}

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

const byCentral = {
  type: 'object',
  required: ['dniTecnico', 'latitud', 'longitud'],
  properties: { dniTecnico: { type: 'string', minLength: 1, maxLength: 64 }, ...coords },
} as const;

const byTechnician = { type: 'object', required: ['latitud', 'longitud'], properties: coords } as const;

interface PositionInput {
  dniTecnico?: string;
  latitud: number;
  longitud: number;
  disponible?: boolean;
}

function messageFor(e: ErrorObject): string {
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

const reply = (status: number, data: string): PositionReply => ({ status, body: { status: status === 200, data } });

export async function updateTechnicianPosition(rt: Runtime, caller: PositionCaller, input: unknown): Promise<PositionReply> {
  const ofTechnician = 'technicianId' in caller;
  const unstorable = findUnstorableText(input);
  if (unstorable !== null) return reply(400, unstorableTextMessage(unstorable));
  const validate = compile(ofTechnician ? byTechnician : byCentral);
  if (!validate(input)) return reply(400, validate.errors?.[0] ? messageFor(validate.errors[0]) : POSITION_MESSAGES.body);
  const body = input as PositionInput;
  if (body.latitud === 0 && body.longitud === 0) return reply(400, POSITION_MESSAGES.zero);
  try {
    const em = rt.orm.em.fork();
    const tech = ofTechnician
      ? await em.findOne(Technician, { id: caller.technicianId })
      : await em.findOne(Technician, { dni: body.dniTecnico, central: { apiUser: caller.id } });
    if (!tech) return reply(404, POSITION_MESSAGES.notFound);
    await setTechnicianPosition(em, tech.id, { lat: body.latitud, lng: body.longitud }, new Date(), body.disponible);
    return reply(200, POSITION_MESSAGES.ok);
  } catch (err) {
    rt.log.error({ err }, 'technician position not updated');
    return reply(500, POSITION_MESSAGES.failure);
  }
}
