/**
 * The body of POST /oferta (spec 2.1, 2.2): its JSON schema, the message of
 * each validation failure (spec 4.1 texts kept exactly; our own where the
 * spec is silent, see docs/decisions.md), and the rules that turn a valid
 * body into the values of a new offer (no database needed for those).
 */
import type { ErrorObject } from 'ajv';
import type { FromSchema } from 'json-schema-to-ts';
import type { VehicleData } from '../../../db/entities/index.js';
import { DomainError } from '../../errors.js';
import { appointmentInstant } from './appointment.js';
import { MAX_COORDINATE_LENGTH, NUMERIC_OR_EMPTY, coordinate, point, rangeText, type Axis } from '../../../geo/coordinates.js';

export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
export const UUID_RE = new RegExp(UUID_PATTERN);

/** descripcionServicio when the body has none and the service type's name is blank (spec 2.1). */
export const DEFAULT_DESCRIPTION = 'SERVICIO NO ESPECIFICADO';

export const OFFER_MESSAGES = {
  received: 'SE HA RECIBIDO EXITOSAMENTE LA OFERTA DEL SERVICIO',
  processing: 'LA OFERTA YA ESTÁ SIENDO PROCESADA',
  alreadyOffered: 'EL SERVICIO YA FUE OFERTADO',
  uuidMissing: "NO SE RECIBIÓ EL CAMPO 'uuid', REQUERIDO PARA EJECUTAR LA OFERTA DEL SERVICIO",
  uuidInvalid: "EL CAMPO 'uuid' DEBE SER UN UUID VÁLIDO (POR EJEMPLO 0b8f6f7e-3c1a-4d2b-9e5f-1a2b3c4d5e6f)",
  typeMissing: "EL CAMPO 'tipoServicio' ES REQUERIDO PARA REALIZAR LA OFERTA DEL SERVICIO",
  typeInvalid: "EL CAMPO 'tipoServicio' DEBE SER EL ID DE UN TIPO DE SERVICIO (CONSULTA GET /types)",
  typeUnknown: (id: number) => `EL TIPO DE SERVICIO ${id} NO EXISTE (CONSULTA GET /types)`,
  originMissing: 'ES NECESARIO LOS DATOS DE LA DIRECCIÓN DE ORIGEN O LAS COORDENADAS DE LA MISMA',
  originNotFound: 'LA DIRECCIÓN DE ORIGEN NO FUE POSIBLE IDENTIFICARLA, POR FAVOR VERIFICA LOS DATOS',
  destinationNotFound:
    "LA DIRECCIÓN DE DESTINO NO FUE POSIBLE IDENTIFICARLA, POR FAVOR VERIFICA LOS DATOS U OMITE EL CAMPO 'direccionDestino'",
  notAnObject: 'EL CUERPO DE LA SOLICITUD DEBE SER UN OBJETO JSON',
  notANumber: (f: string) => `EL CAMPO '${f}' DEBE SER UN NÚMERO`,
  notAnInteger: (f: string) => `EL CAMPO '${f}' DEBE SER UN NÚMERO ENTERO NO NEGATIVO`,
  notText: (f: string) => `EL CAMPO '${f}' DEBE SER UN TEXTO`,
  notAnObjectField: (f: string) => `EL CAMPO '${f}' DEBE SER UN OBJETO`,
  tooLong: (f: string, max: number) => `EL CAMPO '${f}' EXCEDE LA LONGITUD MÁXIMA DE ${max} CARACTERES`,
  outOfRange: (f: string, axis: Axis) => `EL CAMPO '${f}' DEBE ESTAR ENTRE ${rangeText(axis)}`,
  badDate: "EL CAMPO 'fechaCita' DEBE SER UNA FECHA VÁLIDA CON EL FORMATO AAAA-MM-DD",
  badTime: "EL CAMPO 'horaCita' DEBE SER UNA HORA VÁLIDA CON EL FORMATO HH:MM (24 HORAS)",
  badPhone: "EL CAMPO 'telefonoCliente' DEBE SER UN TELÉFONO DE 7 A 15 DÍGITOS, CON '+' INICIAL OPCIONAL (SE ADMITEN ESPACIOS Y GUIONES ENTRE DÍGITOS)",
} as const;

/**
 * The customer's phone (D16): 7–15 digits, an optional leading `+`, a space
 * or a dash allowed between digits. Each repetition takes exactly one digit,
 * so the pattern is linear.
 */
export const PHONE_PATTERN = '^\\+?(?:[0-9][ -]?){6,14}[0-9]$';

/** `+57 300-123 4567` → `+573001234567`; empty → null. */
export function normalizePhone(value: string | null | undefined): string | null {
  const v = value?.trim();
  if (!v) return null;
  return `${v.startsWith('+') ? '+' : ''}${v.replace(/[^0-9]/g, '')}`;
}

const text = (max: number) => ({ type: ['string', 'null'], maxLength: max }) as const;
const coord = { type: ['number', 'string', 'null'], maxLength: MAX_COORDINATE_LENGTH, pattern: NUMERIC_OR_EMPTY } as const;
const identifier = { type: ['integer', 'string', 'null'], minimum: 0, maximum: Number.MAX_SAFE_INTEGER, maxLength: 32, pattern: '^\\s*(?:[0-9]{1,15}\\s*)?$' } as const;

/**
 * allOf keeps the order of the checks: uuid first, then tipoServicio, then
 * everything else (ajv stops at the first failure).
 */
export const offerSchema = {
  type: 'object',
  allOf: [
    { required: ['uuid'], properties: { uuid: { type: 'string', minLength: 1, maxLength: 36, pattern: UUID_PATTERN } } },
    {
      required: ['tipoServicio'],
      properties: {
        tipoServicio: { type: ['string', 'integer'], minLength: 1, maxLength: 255, minimum: 1, maximum: 2147483647, pattern: '^\\s*[0-9]{1,9}\\s*(,.*)?$' },
      },
    },
    {
      properties: {
        latitudOrigen: coord,
        longitudOrigen: coord,
        direccionOrigen: text(500),
        descripcionServicio: text(2000),
        puntoReferenciaOrigen: text(500),
        direccionDestino: text(500),
        latitudDestino: coord,
        longitudDestino: coord,
        puntoReferenciaDestino: text(500),
        ciudad: text(255),
        departamento: text(255),
        fechaCita: { type: ['string', 'null'], maxLength: 32, pattern: '^\\s*(?:[0-9]{4}-[0-9]{2}-[0-9]{2}\\s*)?$' },
        horaCita: { type: ['string', 'null'], maxLength: 32, pattern: '^\\s*(?:(?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9])?\\s*)?$' },
        observaciones: text(5000),
        vehiculo: {
          type: ['object', 'null'],
          properties: {
            marca: text(100),
            linea: text(100),
            detalleLinea: text(200),
            modelo: text(50),
            tipoCombustible: text(50),
            blindaje: text(50),
          },
        },
        guardian: text(10),
        ofertante: text(120),
        subOfertante: text(120),
        internal: identifier,
        global: identifier,
        socketId: text(255),
        telefonoCliente: { type: ['string', 'null'], maxLength: 32, anyOf: [{ type: 'null' }, { maxLength: 0 }, { pattern: PHONE_PATTERN }] },
      },
    },
  ],
} as const;

export type OfferInput = FromSchema<typeof offerSchema>;

const NUMERIC_FIELDS = new Set(['latitudOrigen', 'longitudOrigen', 'latitudDestino', 'longitudDestino']);
const INTEGER_FIELDS = new Set(['internal', 'global']);

/** The 400 message of the first schema failure. */
export function offerErrorMessage(e: ErrorObject): string {
  if (e.keyword === 'required') {
    return (e.params as { missingProperty: string }).missingProperty === 'uuid' ? OFFER_MESSAGES.uuidMissing : OFFER_MESSAGES.typeMissing;
  }
  const field = e.instancePath.slice(1).replaceAll('/', '.');
  if (field === '') return OFFER_MESSAGES.notAnObject;
  if (field === 'uuid') return e.keyword === 'minLength' ? OFFER_MESSAGES.uuidMissing : OFFER_MESSAGES.uuidInvalid;
  if (field === 'tipoServicio') return e.keyword === 'minLength' ? OFFER_MESSAGES.typeMissing : OFFER_MESSAGES.typeInvalid;
  if (e.keyword === 'maxLength') return OFFER_MESSAGES.tooLong(field, (e.params as { limit: number }).limit);
  if (NUMERIC_FIELDS.has(field)) return OFFER_MESSAGES.notANumber(field);
  if (INTEGER_FIELDS.has(field)) return OFFER_MESSAGES.notAnInteger(field);
  if (field === 'fechaCita') return OFFER_MESSAGES.badDate;
  if (field === 'horaCita') return OFFER_MESSAGES.badTime;
  if (field === 'telefonoCliente') return OFFER_MESSAGES.badPhone;
  if (field === 'vehiculo') return OFFER_MESSAGES.notAnObjectField(field);
  return OFFER_MESSAGES.notText(field);
}

/** A valid body turned into the values of a new offer; what needs the database or the generator comes later. */
export interface OfferDraft {
  uuid: string;
  serviceTypeId: number;
  origin: { lat: number; lng: number } | null;
  direccionOrigen: string | null;
  puntoReferenciaOrigen: string | null;
  ciudad: string | null;
  departamento: string | null;
  destination: { lat: number; lng: number } | null;
  direccionDestino: string | null;
  puntoReferenciaDestino: string | null;
  /** null: the service type's name, else DEFAULT_DESCRIPTION (written so by store.ts) */
  descripcionServicio: string | null;
  fechaCita: string | null;
  horaCita: string | null;
  /** null: immediate service (now) */
  scheduledAt: Date | null;
  observaciones: string | null;
  vehiculo: VehicleData | null;
  priority: boolean;
  ofertante: string | null;
  subOfertante: string | null;
  internal: number | null;
  global: number | null;
  socketId: string | null;
  /** normalised (normalizePhone); never sent to centrals or technicians before assignment */
  telefonoCliente: string | null;
}

/** Trimmed text; empty means absent. */
function clean(value: string | null | undefined): string | null {
  const v = value?.trim();
  return v ? v : null;
}

function coordinateOrFail(value: number | string | null | undefined, field: string, axis: Axis): number | null {
  const c = coordinate(value, axis);
  if (c === 'out-of-range') throw new DomainError('offer.coordinate-out-of-range', { field, axis });
  return c;
}

function identifierValue(value: number | string | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return value;
  return value.trim() === '' ? null : Number(value);
}

const VEHICLE_LABELS: Array<[keyof VehicleData, string]> = [
  ['marca', 'Marca'],
  ['linea', 'Línea'],
  ['detalleLinea', 'Detalle línea'],
  ['modelo', 'Modelo'],
  ['tipoCombustible', 'Combustible'],
  ['blindaje', 'Blindaje'],
];

/** The vehicle's fields that have data (spec 2.2), or null when none has. */
export function vehicleData(v: OfferInput['vehiculo']): VehicleData | null {
  if (!v) return null;
  const out: VehicleData = {};
  for (const [key] of VEHICLE_LABELS) {
    const value = clean(v[key]);
    if (value) out[key] = value;
  }
  return Object.keys(out).length ? out : null;
}

/** `VEHÍCULO: Marca: X, Línea: Y, ...` prepended to the comments with ` | ` (spec 2.2). */
export function observacionesWithVehicle(vehiculo: VehicleData | null, observaciones: string | null): string | null {
  if (!vehiculo) return observaciones;
  const legend = `VEHÍCULO: ${VEHICLE_LABELS.filter(([k]) => vehiculo[k])
    .map(([k, label]) => `${label}: ${vehiculo[k]}`)
    .join(', ')}`;
  return observaciones ? `${legend} | ${observaciones}` : legend;
}

/** The rules of spec 2.1 that need neither the database nor the generator. Throws the 400s. */
export function draftOffer(input: OfferInput): OfferDraft {
  const origin = point(
    coordinateOrFail(input.latitudOrigen, 'latitudOrigen', 'lat'),
    coordinateOrFail(input.longitudOrigen, 'longitudOrigen', 'lng'),
  );
  const direccionOrigen = clean(input.direccionOrigen);
  if (!origin && !direccionOrigen) throw new DomainError('offer.origin-missing');
  const destination = point(
    coordinateOrFail(input.latitudDestino, 'latitudDestino', 'lat'),
    coordinateOrFail(input.longitudDestino, 'longitudDestino', 'lng'),
  );
  const fechaCita = clean(input.fechaCita);
  const horaCita = clean(input.horaCita);
  let scheduledAt: Date | null = null;
  if (fechaCita) {
    scheduledAt = appointmentInstant(fechaCita, horaCita);
    if (!scheduledAt) throw new DomainError('offer.appointment-invalid', { fechaCita });
  }
  const vehiculo = vehicleData(input.vehiculo);
  return {
    uuid: input.uuid.toLowerCase(),
    serviceTypeId: Number(String(input.tipoServicio).split(',')[0].trim()),
    origin,
    direccionOrigen,
    puntoReferenciaOrigen: clean(input.puntoReferenciaOrigen),
    ciudad: clean(input.ciudad),
    departamento: clean(input.departamento),
    destination,
    direccionDestino: clean(input.direccionDestino),
    puntoReferenciaDestino: clean(input.puntoReferenciaDestino),
    descripcionServicio: clean(input.descripcionServicio),
    fechaCita,
    horaCita,
    scheduledAt,
    observaciones: observacionesWithVehicle(vehiculo, clean(input.observaciones)),
    vehiculo,
    priority: clean(input.guardian)?.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toUpperCase() === 'SI',
    ofertante: clean(input.ofertante),
    subOfertante: clean(input.subOfertante),
    internal: identifierValue(input.internal),
    global: identifierValue(input.global),
    socketId: clean(input.socketId),
    telefonoCliente: normalizePhone(input.telefonoCliente),
  };
}
