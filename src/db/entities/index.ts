/**
 * Every persistent entity. Geometry columns (central_area.area,
 * technician.position, offer.origin) are not mapped: they are written and read
 * with PostGIS SQL in src/geo, and created by the migrations.
 */
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { OfferState } from '../../domain/offers/lifecycle/states.js';

/** A double precision column read as a JS number (MikroORM reads doubles as strings by default). */
const num = () => p.double().runtimeType('number').$type<number>();

export const BusinessLine = defineEntity({
  name: 'BusinessLine',
  tableName: 'business_line',
  properties: {
    code: p.string().primary(),
    name: p.string(),
  },
});
export type BusinessLine = InferEntity<typeof BusinessLine>;

export const ServiceType = defineEntity({
  name: 'ServiceType',
  tableName: 'service_type',
  properties: {
    id: p.integer().primary().autoincrement(false),
    type: p.string(),
    requiredOrigin: p.boolean(),
    requiredDestination: p.boolean(),
    line: () => p.manyToOne(BusinessLine).nullable().fieldName('line_code'),
  },
});
export type ServiceType = InferEntity<typeof ServiceType>;

export interface ApiEndpointMap {
  respuesta?: string;
  estado?: string;
  oferta?: string;
  novedad?: string;
  [key: string]: string | undefined;
}

export const ApiUser = defineEntity({
  name: 'ApiUser',
  tableName: 'api_user',
  properties: {
    id: p.integer().primary(),
    username: p.string().unique(),
    passwordSha256: p.string().length(64),
    status: p.enum(['ACTIVO', 'INACTIVO'] as const),
    endpoints: p.json<string[]>(),
    businessName: p.string(),
    nit: p.string().nullable().index(),
    /** SHA-256 (hex) of the inbound x-apikey; the key itself is never stored (D24) */
    apiKeyHash: p.string().length(64).nullable().index(),
    /** the key replaced by the last rotation, still valid until previousKeyUntil (API_KEY_GRACE_S) */
    previousApiKeyHash: p.string().length(64).nullable(),
    previousKeyUntil: p.datetime().nullable(),
    /** the x-apikey our webhooks to this profile carry: its own secret, never the inbound key (D24) */
    outboundKey: p.string().nullable(),
    urlApi: p.string().nullable(),
    apiEndpoint: p.json<ApiEndpointMap>(),
    webhookSecret: p.string().nullable(),
    /** a generator's help line for its customers, shown on the customer page (CUS-3) */
    helpLine: p.string().length(32).nullable(),
    requiresPaymentConfirmation: p.boolean().default(false),
    /** D24: a generator's offers per minute (POST /oferta, /asignacion-directa); null: QUOTA_OFFERS_PER_MIN */
    offersPerMinute: p.integer().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
export type ApiUser = InferEntity<typeof ApiUser>;

export const Central = defineEntity({
  name: 'Central',
  tableName: 'central',
  properties: {
    id: p.integer().primary(),
    nit: p.string().unique(),
    name: p.string(),
    phone: p.string().nullable(),
    apiUser: () => p.manyToOne(ApiUser).nullable().index(),
    serviceTypes: p.json<number[]>(),
  },
});
export type Central = InferEntity<typeof Central>;

export const Technician = defineEntity({
  name: 'Technician',
  tableName: 'technician',
  properties: {
    id: p.integer().primary(),
    dni: p.string().unique(),
    central: () => p.manyToOne(Central).index(),
    names: p.string(),
    phone: p.string().nullable(),
    identifier: p.string().nullable(),
    rate: num().default(5),
    available: p.boolean().default(true),
    /** last known position, mirrored from the PostGIS column for reading without SQL */
    lat: num().nullable(),
    lng: num().nullable(),
    positionAt: p.datetime().nullable(),
    serviceTypes: p.json<number[]>(),
    /** the service it is assigned to (D16): busy from ASIGNADA until the service ends; no offers meanwhile */
    busyOfferUuid: p.uuid().nullable(),
    /** the rate it was provisioned with, averaged once with every survey (D14) */
    initialRate: num().nullable(),
    /** INACTIVO: gets no offers, its tokens are refused (D20) */
    status: p.enum(['ACTIVO', 'INACTIVO'] as const).default('ACTIVO'),
  },
});
export type Technician = InferEntity<typeof Technician>;

export const OperatorUser = defineEntity({
  name: 'OperatorUser',
  tableName: 'operator_user',
  properties: {
    id: p.integer().primary(),
    username: p.string().unique(),
    passwordHash: p.string(),
    role: p.enum(['admin', 'operator'] as const).default('operator'),
  },
});
export type OperatorUser = InferEntity<typeof OperatorUser>;

export interface VehicleData {
  marca?: string;
  linea?: string;
  detalleLinea?: string;
  modelo?: string;
  tipoCombustible?: string;
  blindaje?: string;
}

export interface Stop {
  direccion: string | null;
  latitud: number;
  longitud: number;
  puntoReferencia: string | null;
  ciudad: string | null;
  departamento: string | null;
  addedAt: string;
}

export const Offer = defineEntity({
  name: 'Offer',
  tableName: 'offer',
  properties: {
    uuid: p.uuid().primary(),
    generator: () => p.manyToOne(ApiUser),
    serviceType: () => p.manyToOne(ServiceType),
    state: p.string().$type<OfferState>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
    deadlineAt: p.datetime().nullable(),
    expiresAt: p.datetime().nullable(),
    /** when its recipients were recorded (by its own distribution or another's batch); null: not yet */
    distributedAt: p.datetime().nullable(),
    originLat: num(),
    originLng: num(),
    direccionOrigen: p.text().nullable(),
    puntoReferenciaOrigen: p.text().nullable(),
    ciudad: p.string().nullable(),
    departamento: p.string().nullable(),
    destLat: num().nullable(),
    destLng: num().nullable(),
    direccionDestino: p.text().nullable(),
    puntoReferenciaDestino: p.text().nullable(),
    descripcionServicio: p.text(),
    fechaCita: p.string().nullable(),
    horaCita: p.string().nullable(),
    scheduledAt: p.datetime(),
    observaciones: p.text().nullable(),
    vehiculo: p.json<VehicleData>().nullable(),
    priority: p.boolean().default(false),
    ofertante: p.string(),
    internal: p.bigint('number').nullable(),
    global: p.bigint('number').nullable(),
    socketId: p.string().nullable(),
    stops: p.json<Stop[]>(),
    codigoServicio: p.string().nullable().unique(),
    codigoSolicitud: p.string().nullable().unique(),
    assignedCentral: () => p.manyToOne(Central).nullable(),
    assignedTechnician: () => p.manyToOne(Technician).nullable(),
    acceptedResponse: p.integer().nullable(),
    ranking: p.json<unknown[]>().nullable(),
    placa: p.string().nullable(),
    observacionesAsignacion: p.text().nullable(),
    motivo: p.text().nullable(),
    /** the customer's phone (D16): digits with an optional leading +; never sent to centrals before assignment */
    telefonoCliente: p.string().nullable(),
  },
});
export type Offer = InferEntity<typeof Offer>;

export const OfferResponse = defineEntity({
  name: 'OfferResponse',
  tableName: 'offer_response',
  properties: {
    id: p.integer().primary(),
    offer: () => p.manyToOne(Offer),
    central: () => p.manyToOne(Central),
    technician: () => p.manyToOne(Technician),
    distanceKm: num(),
    timeMin: num(),
    /** true when tiempoLlegadaSitio was given, false when time was estimated from the distance */
    timeGiven: p.boolean(),
    rate: num(),
    techLat: num().nullable(),
    techLng: num().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  uniques: [{ properties: ['offer', 'central'] }],
});
export type OfferResponse = InferEntity<typeof OfferResponse>;

/** Append-only audit trail of state moves (decisions D1). */
export const OfferTransition = defineEntity({
  name: 'OfferTransition',
  tableName: 'offer_transition',
  properties: {
    id: p.bigint('number').primary(),
    offer: () => p.manyToOne(Offer).index(),
    fromState: p.string().nullable(),
    toState: p.string(),
    actor: p.string(),
    at: p.datetime().onCreate(() => new Date()),
    techLat: num().nullable(),
    techLng: num().nullable(),
    detail: p.json<Record<string, unknown>>().nullable(),
  },
});
export type OfferTransition = InferEntity<typeof OfferTransition>;

/** `test`: a sample an API user asked for (POST /webhooks/test, D23), about no offer */
export type DeliveryKind = 'acceptance' | 'state' | 'novedad' | 'offer-push' | 'assignment-push' | 'test';
export type DeliveryState = 'pending' | 'sending' | 'ok' | 'failed';

/**
 * One outgoing webhook: its request, its state and what the peer answered (STYLE 10).
 * Its `seq` column (bigserial, written by the database) orders the deliveries of
 * one offer to one URL; it is read by SQL only.
 */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_delivery',
  properties: {
    id: p.uuid().primary(),
    offer: () => p.manyToOne(Offer).nullable().index(),
    kind: p.string().$type<DeliveryKind>(),
    /** the x-event-id header: receivers deduplicate with it */
    eventId: p.string().unique(),
    url: p.text(),
    method: p.string().default('PUT'),
    requestHeaders: p.json<Record<string, string>>(),
    requestBody: p.json<Record<string, unknown>>(),
    /** the API user it goes to: its outbound key, webhookSecret and current URL are read when sending, never stored here */
    receiver: () => p.manyToOne(ApiUser).nullable(),
    state: p.string().$type<DeliveryState>().default('pending'),
    attempts: p.integer().default(0),
    statusCode: p.integer().nullable(),
    latencyMs: p.integer().nullable(),
    replyBody: p.text().nullable(),
    error: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    sentAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
  },
});
export type WebhookDelivery = InferEntity<typeof WebhookDelivery>;

/** http: pushed to the central's api_endpoint.oferta; none: no channel (its technicians get the offer in real time) */
export type RecipientChannel = 'http' | 'none';

/**
 * Who an offer was distributed to, and when (decisions D8): one row per offer
 * and covering central, with the central's technicians that received it
 * (nearest first) and when they were published `offer.new`.
 */
export const OfferRecipient = defineEntity({
  name: 'OfferRecipient',
  tableName: 'offer_recipient',
  properties: {
    id: p.integer().primary(),
    offer: () => p.manyToOne(Offer),
    central: () => p.manyToOne(Central),
    channel: p.string().$type<RecipientChannel>(),
    /** the HTTP push (kind 'offer-push') to the central */
    delivery: () => p.manyToOne(WebhookDelivery).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** the central's technicians that received the offer, nearest first, and their distances to the origin when selected (km) */
    technicianIds: p.array((i) => Number(i)).columnType('int[]').onCreate(() => []),
    technicianKm: p.array((i) => Number(i)).columnType('double precision[]').onCreate(() => []),
    /** when the offer was published to those technicians */
    techniciansNotifiedAt: p.datetime().nullable(),
  },
});
export type OfferRecipient = InferEntity<typeof OfferRecipient>;

export const GazetteerEntry = defineEntity({
  name: 'GazetteerEntry',
  tableName: 'gazetteer',
  properties: {
    id: p.integer().primary(),
    address: p.text(),
    /** normalized (lower case, no accents, single spaces) for lookups */
    addressKey: p.text().unique(),
    lat: num(),
    lng: num(),
    ciudad: p.string().nullable(),
    departamento: p.string().nullable(),
  },
});
export type GazetteerEntry = InferEntity<typeof GazetteerEntry>;

export const entities = [
  BusinessLine,
  ServiceType,
  ApiUser,
  Central,
  Technician,
  OperatorUser,
  Offer,
  OfferResponse,
  OfferTransition,
  WebhookDelivery,
  OfferRecipient,
  GazetteerEntry,
];
