/**
 * GET /tecnicos/servicios (D20): the calling technician's own work, with its
 * token (or its central's key and x-dni-tecnico): the offers still open that
 * were published to it and its central has not answered (each as `offer.new`
 * carries it), and the service it is doing (as `service.assigned` carries it).
 */
import { technicianWork } from '../../domain/services/technicianWork.js';
import { str } from '../document/components.js';
import { API, operation } from '../operation.js';

const nstr = (n: number) => ({ type: ['string', 'null'], maxLength: n }) as const;
const nnum = { type: ['number', 'null'] } as const;

export const TECHNICIAN_SERVICES_MESSAGES = { failure: 'ERROR AL CONSULTAR LOS SERVICIOS DEL TÉCNICO' } as const;

const OpenOffer = {
  type: 'object',
  required: ['uuid', 'tipoServicio', 'descripcionServicio', 'latitudOrigen', 'longitudOrigen', 'guardian', 'deadline', 'distance'],
  properties: {
    uuid: str(36),
    tipoServicio: { type: 'integer' },
    descripcionServicio: str(2000),
    latitudOrigen: { type: 'number' },
    longitudOrigen: { type: 'number' },
    direccionOrigen: nstr(1024),
    ciudad: nstr(255),
    departamento: nstr(255),
    direccionDestino: nstr(1024),
    latitudDestino: nnum,
    longitudDestino: nnum,
    observaciones: nstr(2000),
    guardian: { enum: ['SI', 'NO'] },
    deadline: nstr(64),
    distance: { type: 'number', description: 'km from the technician’s position at distribution' },
  },
} as const;

const ActiveService = {
  type: 'object',
  required: ['uuid', 'codigoServicio', 'estado', 'servicio'],
  properties: {
    uuid: str(36),
    codigoServicio: nstr(32),
    estado: { enum: ['ASIGNADA', 'EN_CAMINO', 'EN_SITIO'] },
    servicio: {
      type: 'object',
      description: 'What the crew needs (D20): as in `service.assigned`; never the customer’s phone',
      required: ['uuid', 'codigoServicio', 'tipoServicio', 'nombreTipoServicio', 'descripcionServicio', 'fechaCita', 'horaCita', 'paradas', 'tecnico'],
    },
  },
} as const;

const TechnicianWorkSchema = {
  type: 'object',
  required: ['status', 'ofertas', 'servicio'],
  properties: {
    status: { const: true },
    ofertas: { type: 'array', items: OpenOffer },
    servicio: { anyOf: [ActiveService, { type: 'null' }] },
  },
} as const;

export const listTechnicianServices = operation({
  method: 'get',
  path: `${API}/tecnicos/servicios`,
  operationId: 'listTechnicianServices',
  summary: 'The technician’s open offers not yet answered and its active service (D20)',
  tag: 'Proveedores',
  auth: 'technician',
  endpointGated: false,
  envelope: 'key',
  failure: TECHNICIAN_SERVICES_MESSAGES.failure,
  responses: {
    200: {
      description: 'Its open offers (oldest first) and its active service (null: none)',
      schema: { name: 'TechnicianWork', schema: TechnicianWorkSchema },
      examples: { idle: { status: true, ofertas: [], servicio: null } },
    },
  },
  handle: async (rt, caller) => {
    if (!caller.technician) throw new Error('listTechnicianServices reached without a technician');
    return { status: true, ...(await technicianWork(rt.orm.em.fork(), caller.technician.id)) };
  },
});
