/** GET /api/v3/centrales/servicios (D20): the calling central's services, with what its crew needs and their timeline. */
import { page, pageTooDeep } from '../document/responses.js';
import { MAX_LIST_DEPTH } from '../../limits.js';
import type { ErrorObject } from 'ajv';
import type { JSONSchema } from 'json-schema-to-ts';
import { centralServices } from '../../domain/services/centralServices.js';
import { OFFER_STATES } from '../../domain/offers/lifecycle/states.js';
import { ControllerError, str } from '../document/components.js';
import { ServicioSchema } from './servicio.js';
import { API, apiUserOf, named, operation } from '../operation.js';

export const CENTRAL_SERVICES_MESSAGES = {
  ok: 'SERVICIOS DE LA CENTRAL',
  estado: `EL PARÁMETRO 'estado' DEBE SER UNO DE ${OFFER_STATES.join(', ')}`,
  page: "EL PARÁMETRO 'page' DEBE SER UN ENTERO POSITIVO",
} as const;

const M = CENTRAL_SERVICES_MESSAGES;

const invalidField = (e: ErrorObject): string => {
  const field = e.instancePath.slice(1);
  return field === 'estado' || field === 'page' ? M[field] : 'SOLICITUD INVÁLIDA';
};

const nstr = (n: number) => ({ type: ['string', 'null'], maxLength: n }) as const;
const date = str(64, { format: 'date-time' });

export const CentralServicesQuery = named('CentralServicesQuery', {
  type: 'object',
  properties: {
    estado: { enum: [...OFFER_STATES] },
    page: str(6, { pattern: '^[1-9][0-9]{0,5}$' }),
  },
} as const);

export const CentralService = named('CentralService', {
  type: 'object',
  required: ['uuid', 'codigoServicio', 'codigoSolicitud', 'estado', 'creadaEn', 'central', 'tecnico', 'servicio', 'timeline'],
  properties: {
    uuid: str(36, { format: 'uuid' }),
    codigoServicio: nstr(32),
    codigoSolicitud: nstr(32),
    estado: { enum: [...OFFER_STATES] },
    creadaEn: date,
    central: { type: 'object', required: ['nit', 'nombre'], properties: { nit: str(255), nombre: str(255) } },
    tecnico: { anyOf: [{ type: 'object', required: ['dniTecnico', 'nombre'], properties: { dniTecnico: str(255), nombre: str(255) } }, { type: 'null' }] },
    servicio: { $ref: `#/components/schemas/${ServicioSchema.name}` },
    timeline: {
      type: 'array',
      description: 'its transitions (D1), in the order made',
      items: { type: 'object', required: ['anterior', 'estado', 'fecha'], properties: { anterior: nstr(20), estado: str(20), fecha: date } },
    },
  },
} as const satisfies JSONSchema);

export const listCentralServices = operation({
  method: 'get',
  path: [API, 'centrales', 'servicios'].join('/'),
  operationId: 'listCentralServices',
  summary: 'The calling central’s services, newest first (D20)',
  description:
    'The offers assigned to one of the centrals of the `x-apikey`’s user (never another’s), newest first, 50 per page; each with its `servicio` (what the crew needs, never the customer’s phone), state, central, technician and timeline. Filter by `estado` (a D1 state).',
  tag: 'Consultas',
  auth: 'apiKey',
  endpointGated: false,
  envelope: 'controller',
  input: { schema: CentralServicesQuery, from: 'jsonOrQuery' },
  invalid: { message: invalidField },
  responses: {
    200: {
      description: 'A page of services',
      schema: page('servicios', CentralService),
      examples: { ok: { status: true, msg: M.ok, data: { page: 1, pageSize: 50, total: 0, servicios: [] } } },
    },
    400: {
      description: `Invalid filter; or a page beyond the first ${MAX_LIST_DEPTH} services (LIM-6: narrow the list with its filters)`,
      schema: ControllerError,
      examples: { estado: { status: false, msg: M.estado }, page: { status: false, msg: M.page }, deep: { status: false, msg: pageTooDeep(MAX_LIST_DEPTH / 50, MAX_LIST_DEPTH) } },
    },
  },
  handle: async (rt, caller, input) => ({
    status: true,
    msg: M.ok,
    data: await centralServices(rt.orm.em.fork(), apiUserOf(caller).id, { estado: input.estado, page: input.page === undefined ? 1 : Number(input.page) }),
  }),
});

export const PROVIDER_SCHEMAS = [CentralService];
