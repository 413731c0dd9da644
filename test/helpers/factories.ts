/**
 * Factories with overrides: each builds one row with sensible defaults and
 * returns it (STYLE 13). Passwords are returned in clear for the tests.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import { ApiUser, BusinessLine, OperatorUser, ServiceType } from '../../src/db/entities/index.js';
import { apiKeyHash, sha256Hex } from '../../src/auth/passwords.js';
import { basic } from './harness.js';

let seq = 0;
const next = () => `${Date.now().toString(36)}${(++seq).toString(36)}`;

export interface ApiUserOverrides extends Partial<Omit<ApiUser, 'id'>> {
  password?: string;
  /** the inbound key in clear: stored as its hash (D24), as provisioning does */
  apiKey?: string | null;
}

/** The key in clear of each API user a factory made (the table keeps only its hash). */
const KEYS = new WeakMap<ApiUser, string>();

/** The x-apikey in clear of a user made by makeApiUser (undefined: none). */
export const keyOf = (user: ApiUser): string | undefined => KEYS.get(user);

export async function makeApiUser(em: EntityManager, o: ApiUserOverrides = {}): Promise<{ user: ApiUser; password: string }> {
  const password = o.password ?? `pw-${randomBytes(6).toString('hex')}`;
  const { password: _pw, apiKey, ...rest } = o;
  const user = em.create(ApiUser, {
    username: `user-${next()}`,
    passwordSha256: sha256Hex(password),
    status: 'ACTIVO',
    endpoints: ['*'],
    businessName: 'Empresa de Prueba S.A.S.',
    nit: null,
    apiKeyHash: apiKey ? apiKeyHash(apiKey) : null,
    previousApiKeyHash: null,
    previousKeyUntil: null,
    outboundKey: null,
    urlApi: null,
    apiEndpoint: {},
    webhookSecret: null,
    requiresPaymentConfirmation: false,
    ...rest,
  });
  await em.flush();
  if (apiKey) KEYS.set(user, apiKey);
  return { user, password };
}

/** Where test generators receive their webhooks (nock intercepts it). */
export const GENERATOR_URL = 'http://generator.test';
/** The acceptance notification's path (spec 6.1) on GENERATOR_URL. */
export const RESPUESTA_PATH = '/api/v1/respuesta';
/** The state notifications' path (D12) on GENERATOR_URL. */
export const ESTADO_PATH = '/estado';

/** A generator profile that also receives the state notifications (D12) at ESTADO_PATH. */
export const WITH_STATE_ENDPOINT = { apiEndpoint: { respuesta: RESPUESTA_PATH, estado: ESTADO_PATH } } as const;

/** A generator (the API user that posts offers) and its credentials. */
export interface Generator {
  user: ApiUser;
  password: string;
  /** the Authorization header value */
  auth: string;
  /** the same, as headers for a socket upgrade */
  headers: { authorization: string };
}

/**
 * A generator with a tax id and the acceptance endpoint (spec 6.1) of its
 * webhook profile under GENERATOR_URL; suites that follow state
 * notifications add `estado` (WITH_STATE_ENDPOINT).
 */
export async function makeGenerator(em: EntityManager, o: ApiUserOverrides = {}): Promise<Generator> {
  const { user, password } = await makeApiUser(em, {
    businessName: 'Aseguradora Andina S.A.',
    nit: `8${Math.floor(Math.random() * 1e8).toString().padStart(8, '0')}`,
    urlApi: GENERATOR_URL,
    apiEndpoint: { respuesta: RESPUESTA_PATH },
    ...o,
  });
  const auth = basic(user.username, password);
  return { user, password, auth, headers: { authorization: auth } };
}

export async function makeServiceType(em: EntityManager, o: Partial<ServiceType> = {}): Promise<ServiceType> {
  const t = em.create(ServiceType, {
    id: o.id ?? 1,
    type: 'GRUA',
    requiredOrigin: true,
    requiredDestination: true,
    line: null,
    ...o,
  });
  await em.flush();
  return t;
}

export async function makeBusinessLine(em: EntityManager, o: Partial<BusinessLine> = {}): Promise<BusinessLine> {
  const l = em.create(BusinessLine, { code: 'VEH', name: 'ASISTENCIA VEHICULAR', ...o });
  await em.flush();
  return l;
}

export async function makeOperator(
  em: EntityManager,
  o: { username?: string; password?: string; role?: 'admin' | 'operator' } = {},
): Promise<{ operator: OperatorUser; password: string }> {
  const password = o.password ?? `op-${randomBytes(6).toString('hex')}`;
  const operator = em.create(OperatorUser, {
    username: o.username ?? `op-${next()}`,
    passwordHash: await argon2.hash(password),
    role: o.role ?? 'operator',
  });
  await em.flush();
  return { operator, password };
}

import { Central, Offer, Technician } from '../../src/db/entities/index.js';
import { setCoverage, setTechnicianPosition, type Coverage } from '../../src/geo/store.js';
import { randomUUID } from 'node:crypto';

/** Bogotá, Chapinero: the default point of the factories. */
export const BOGOTA = { lat: 4.6533, lng: -74.0836 };

export async function makeCentral(
  em: EntityManager,
  o: Partial<Omit<Central, 'id'>> & { coverage?: Coverage } = {},
): Promise<Central> {
  const { coverage, ...rest } = o;
  const central = em.create(Central, {
    nit: `9${Math.floor(Math.random() * 1e8).toString().padStart(8, '0')}`,
    name: 'Central de Prueba',
    phone: '+576015550000',
    apiUser: null,
    serviceTypes: [1],
    ...rest,
  });
  await em.flush();
  await setCoverage(em, central.id, central.serviceTypes, coverage ?? { center: BOGOTA, radiusKm: 40 });
  return central;
}

export async function makeTechnician(
  em: EntityManager,
  central: Central,
  o: Partial<Omit<Technician, 'id' | 'central'>> & { position?: { lat: number; lng: number } | null } = {},
): Promise<Technician> {
  const { position, ...rest } = o;
  const tech = em.create(Technician, {
    central,
    dni: `10${Math.floor(Math.random() * 1e8).toString().padStart(8, '0')}`,
    names: 'Técnico de Prueba',
    phone: '+573000000000',
    identifier: 'T-01',
    rate: 4.5,
    available: true,
    serviceTypes: [1],
    lat: null,
    lng: null,
    positionAt: null,
    ...rest,
  });
  await em.flush();
  const pos = position === undefined ? BOGOTA : position;
  await setTechnicianPosition(em, tech.id, pos);
  if (pos) {
    tech.lat = pos.lat;
    tech.lng = pos.lng;
  }
  return tech;
}

/** An offer row as POST /oferta would store it (no jobs are enqueued). */
export async function makeOffer(
  em: EntityManager,
  generator: ApiUser,
  o: Partial<Omit<Offer, 'generator'>> = {},
): Promise<Offer> {
  const now = new Date();
  const offer = em.create(Offer, {
    uuid: randomUUID(),
    generator,
    serviceType: 1,
    state: 'ABIERTA',
    createdAt: now,
    updatedAt: now,
    deadlineAt: new Date(now.getTime() + 30000),
    expiresAt: new Date(now.getTime() + 900000),
    originLat: BOGOTA.lat,
    originLng: BOGOTA.lng,
    direccionOrigen: null,
    puntoReferenciaOrigen: null,
    ciudad: 'Bogotá',
    departamento: 'Cundinamarca',
    destLat: null,
    destLng: null,
    direccionDestino: null,
    puntoReferenciaDestino: null,
    descripcionServicio: 'GRUA',
    fechaCita: null,
    horaCita: null,
    scheduledAt: now,
    observaciones: null,
    vehiculo: null,
    priority: false,
    ofertante: generator.businessName,
    internal: null,
    global: null,
    socketId: null,
    stops: [],
    codigoServicio: null,
    codigoSolicitud: null,
    assignedCentral: null,
    assignedTechnician: null,
    acceptedResponse: null,
    ranking: null,
    placa: null,
    observacionesAsignacion: null,
    motivo: null,
    ...o,
  });
  await em.flush();
  return offer;
}
