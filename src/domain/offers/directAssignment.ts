/**
 * POST /asignacion-directa (D6): an offer body (spec 2.1) plus the tax id of
 * the central (`dniPrestador`) and optionally its technician (`dniTecnico`);
 * the service is created already ASIGNADA to that central, with no response
 * window and no distribution, and gets its codigoServicio and codigoSolicitud.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Central, Offer, ServiceType, Technician, type ApiUser, type VehicleData } from '../../db/entities/index.js';
import { readPoint, type CoordinateValue } from '../../geo/coordinates.js';
import { controllerError } from '../../http/errors.js';
import type { Runtime } from '../../main/runtime.js';
import { announceTransition } from './announce.js';
import { ensureServiceCodes } from './codes.js';
import { recordCreation } from './stateMachine.js';

export interface DirectAssignmentInput {
  uuid: string;
  tipoServicio: string | number;
  dniPrestador: string;
  dniTecnico?: string;
  latitudOrigen?: CoordinateValue;
  longitudOrigen?: CoordinateValue;
  direccionOrigen?: string;
  puntoReferenciaOrigen?: string;
  descripcionServicio?: string;
  direccionDestino?: string;
  latitudDestino?: CoordinateValue;
  longitudDestino?: CoordinateValue;
  puntoReferenciaDestino?: string;
  ciudad?: string;
  departamento?: string;
  fechaCita?: string;
  horaCita?: string;
  observaciones?: string;
  vehiculo?: VehicleData;
  guardian?: string;
  ofertante?: string;
  subOfertante?: string;
  internal?: number;
  global?: number;
}

export const DIRECT_MESSAGES = {
  ok: (central: string) => `SE HA REGISTRADO EXITOSAMENTE LA ASIGNACIÓN DIRECTA DEL SERVICIO A LA CENTRAL ${central}`,
  duplicate: 'EL SERVICIO YA FUE OFERTADO',
  missingOrigin: 'ES NECESARIO LOS DATOS DE LA DIRECCIÓN DE ORIGEN O LAS COORDENADAS DE LA MISMA',
  originNotGeocoded: 'LA DIRECCIÓN DE ORIGEN NO FUE POSIBLE IDENTIFICARLA, POR FAVOR VERIFICA LOS DATOS',
  destinationNotGeocoded:
    'LA DIRECCIÓN DE DESTINO NO FUE POSIBLE IDENTIFICARLA, POR FAVOR VERIFICA LOS DATOS U OMITE EL CAMPO direccionDestino',
  unknownType: (t: string) => `EL TIPO DE SERVICIO '${t}' NO EXISTE`,
  unknownCentral: (nit: string) => `NO SE ENCONTRÓ LA CENTRAL (PRESTADOR) CON NIT ${nit}`,
  unknownTechnician: 'NO SE ENCONTRÓ EL TÉCNICO',
  typeNotServed: (central: string, type: string) => `LA CENTRAL ${central} NO PRESTA EL SERVICIO ${type}`,
  badSchedule: 'LA FECHA U HORA DE LA CITA NO ES VÁLIDA (fechaCita AAAA-MM-DD, horaCita HH:MM)',
} as const;

const VEHICLE_LABELS: Record<keyof VehicleData, string> = {
  marca: 'MARCA',
  linea: 'LÍNEA',
  detalleLinea: 'DETALLE LÍNEA',
  modelo: 'MODELO',
  tipoCombustible: 'COMBUSTIBLE',
  blindaje: 'BLINDAJE',
};

/** The vehicle legend prepended to the remarks (spec 2.2), or null when the object has no data. */
export function vehicleLegend(v: VehicleData | undefined): string | null {
  const parts = Object.entries(VEHICLE_LABELS)
    .map(([k, label]) => [label, v?.[k as keyof VehicleData]?.trim()] as const)
    .filter(([, value]) => value)
    .map(([label, value]) => `${label}: ${value}`);
  return parts.length ? `VEHÍCULO: ${parts.join(', ')}` : null;
}

/** The appointment instant: an empty or absent date is "now" (spec 2.1); dates are local days (LOCAL_UTC_OFFSET). */
export function appointment(fechaCita: string | undefined, horaCita: string | undefined, offset: string): Date {
  const fecha = fechaCita?.trim();
  if (!fecha) return new Date();
  const at = new Date(`${fecha}T${horaCita?.trim() || '00:00'}:00${offset}`);
  if (Number.isNaN(at.getTime())) throw controllerError(400, DIRECT_MESSAGES.badSchedule);
  return at;
}

async function origin(rt: Runtime, input: DirectAssignmentInput) {
  const point = readPoint(input.latitudOrigen, input.longitudOrigen);
  if (point && point !== 'invalid') return { ...point, ciudad: input.ciudad ?? null, departamento: input.departamento ?? null };
  const address = input.direccionOrigen?.trim();
  if (!address) throw controllerError(400, DIRECT_MESSAGES.missingOrigin);
  const hit = await rt.geocoder.geocode(address);
  if (!hit) throw controllerError(400, DIRECT_MESSAGES.originNotGeocoded);
  return { lat: hit.lat, lng: hit.lng, ciudad: hit.ciudad ?? input.ciudad ?? null, departamento: hit.departamento ?? input.departamento ?? null };
}

async function destination(rt: Runtime, input: DirectAssignmentInput): Promise<{ lat: number; lng: number } | null> {
  const point = readPoint(input.latitudDestino, input.longitudDestino);
  if (point && point !== 'invalid') return point;
  const address = input.direccionDestino?.trim();
  if (!address) return null;
  const hit = await rt.geocoder.geocode(address);
  if (!hit) throw controllerError(400, DIRECT_MESSAGES.destinationNotGeocoded);
  return { lat: hit.lat, lng: hit.lng };
}

export interface DirectAssignmentResult {
  uuid: string;
  centralName: string;
  codigoServicio: string;
  codigoSolicitud: string;
}

export async function assignDirectly(rt: Runtime, user: ApiUser, input: DirectAssignmentInput): Promise<DirectAssignmentResult> {
  const em = rt.orm.em;
  const uuid = input.uuid.toLowerCase();
  const typeRef = String(input.tipoServicio).split(',')[0].trim();
  const type = /^\d{1,9}$/.test(typeRef) ? await em.findOne(ServiceType, Number(typeRef)) : null;
  if (!type) throw controllerError(400, DIRECT_MESSAGES.unknownType(typeRef));
  const central = await em.findOne(Central, { nit: input.dniPrestador.trim() });
  if (!central) throw controllerError(404, DIRECT_MESSAGES.unknownCentral(input.dniPrestador.trim()));
  if (!central.serviceTypes.includes(type.id)) throw controllerError(400, DIRECT_MESSAGES.typeNotServed(central.name, type.type));
  const technician = input.dniTecnico ? await em.findOne(Technician, { dni: input.dniTecnico.trim(), central }) : null;
  if (input.dniTecnico && !technician) throw controllerError(404, DIRECT_MESSAGES.unknownTechnician);
  if (await em.count(Offer, { uuid })) throw controllerError(400, DIRECT_MESSAGES.duplicate);
  const from = await origin(rt, input);
  const to = await destination(rt, input);
  const scheduledAt = appointment(input.fechaCita, input.horaCita, rt.config.localUtcOffset);
  const legend = vehicleLegend(input.vehiculo);
  const observaciones = [legend, input.observaciones?.trim()].filter(Boolean).join(' | ') || null;
  const ofertante = input.ofertante?.trim() || user.businessName;

  const offer = await em
    .transactional(async (tx) => {
      const now = new Date();
      const o = tx.create(Offer, {
        uuid,
        generator: user,
        serviceType: type,
        state: 'ASIGNADA',
        createdAt: now,
        updatedAt: now,
        deadlineAt: null,
        expiresAt: null,
        originLat: from.lat,
        originLng: from.lng,
        direccionOrigen: input.direccionOrigen?.trim() || null,
        puntoReferenciaOrigen: input.puntoReferenciaOrigen ?? null,
        ciudad: from.ciudad,
        departamento: from.departamento,
        destLat: to?.lat ?? null,
        destLng: to?.lng ?? null,
        direccionDestino: input.direccionDestino?.trim() || null,
        puntoReferenciaDestino: input.puntoReferenciaDestino ?? null,
        descripcionServicio: input.descripcionServicio?.trim() || type.type,
        fechaCita: input.fechaCita?.trim() || null,
        horaCita: input.horaCita?.trim() || null,
        scheduledAt,
        observaciones,
        vehiculo: legend ? (input.vehiculo ?? null) : null,
        priority: input.guardian?.trim().toUpperCase() === 'SI',
        ofertante: input.subOfertante?.trim() ? `${ofertante} - ${input.subOfertante.trim()}` : ofertante,
        internal: input.internal ?? null,
        global: input.global ?? null,
        socketId: null,
        stops: [],
        assignedCentral: central,
        assignedTechnician: technician,
      });
      recordCreation(tx, o, 'asignacion-directa', `api-user:${user.username}`);
      await ensureServiceCodes(tx, o);
      await tx.flush();
      return o;
    })
    .catch((err: unknown) => {
      // Two requests with the same uuid at once: the primary key lets one through.
      if (err instanceof UniqueConstraintViolationException && /offer_pkey/.test(err.message)) {
        throw controllerError(400, DIRECT_MESSAGES.duplicate);
      }
      throw err;
    });
  await announceTransition(rt, { uuid, generatorId: user.id }, { from: null, to: 'ASIGNADA', notificationIds: [] });
  return { uuid, centralName: central.name, codigoServicio: offer.codigoServicio as string, codigoSolicitud: offer.codigoSolicitud as string };
}
