/**
 * The body of POST /oferta (spec 2.1, 2.2) as the domain takes it, and the
 * rules that turn a valid body into the values of a new offer (no database
 * needed for those). Its schema and wording: src/api/offers/createOffer.ts.
 */
import type { VehicleData } from '../../../db/entities/index.js';
import { DomainError } from '../../errors.js';
import { appointmentInstant } from './appointment.js';
import { coordinate, point, type Axis } from '../../../geo/coordinates.js';

export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
export const UUID_RE = new RegExp(UUID_PATTERN);

/** descripcionServicio when the body has none and the service type's name is blank (spec 2.1). */
export const DEFAULT_DESCRIPTION = 'SERVICIO NO ESPECIFICADO';

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

type Text = string | null;
type Coordinate = number | string | null;

/**
 * POST /oferta's validated body (spec 2.1, 2.2); its schema, the wording of a
 * bad body and of the offer's errors: src/api/offers/createOffer.ts.
 */
export interface OfferInput {
  uuid: string;
  tipoServicio: string | number;
  latitudOrigen?: Coordinate;
  longitudOrigen?: Coordinate;
  direccionOrigen?: Text;
  descripcionServicio?: Text;
  puntoReferenciaOrigen?: Text;
  direccionDestino?: Text;
  latitudDestino?: Coordinate;
  longitudDestino?: Coordinate;
  puntoReferenciaDestino?: Text;
  ciudad?: Text;
  departamento?: Text;
  fechaCita?: Text;
  horaCita?: Text;
  observaciones?: Text;
  vehiculo?: { marca?: Text; linea?: Text; detalleLinea?: Text; modelo?: Text; tipoCombustible?: Text; blindaje?: Text } | null;
  guardian?: Text;
  ofertante?: Text;
  subOfertante?: Text;
  internal?: number | string | null;
  global?: number | string | null;
  socketId?: Text;
  telefonoCliente?: Text;
  /** the spec's clients send more than the offer reads; unknown fields are ignored */
  [field: string]: unknown;
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
