/**
 * GET /admin/mapa (operators, issue 31, D23): what the console's live map
 * draws — technicians with their position and whether they are free, open
 * offers with their window's deadline, services on the way with the
 * technician's position and where it goes — and GET /admin/socket-token:
 * a short-lived token for the console's socket (`/v3?token=`), since the
 * page's own session is an httpOnly cookie its script cannot read.
 */
import type { JSONSchema } from 'json-schema-to-ts';
import { signOperatorToken } from '../../auth/jwt.js';
import { liveMap as readLiveMap } from '../../domain/console/liveMap.js';
import { str } from '../document/components.js';
import { nullable, succeeded } from '../document/responses.js';
import { API, operation } from '../operation.js';

export const LIVE_MAP_MESSAGES = { ok: 'MAPA EN VIVO', token: 'TOKEN DEL SOCKET DE OPERADOR' } as const;

/** How long a socket token is good for: long enough to open one socket, no longer. */
export const SOCKET_TOKEN_TTL_S = 60;

const date = (description: string) => str(64, { format: 'date-time', description });
const lat = (description: string) => ({ type: 'number', minimum: -90, maximum: 90, description }) as const;
const lng = (description: string) => ({ type: 'number', minimum: -180, maximum: 180, description }) as const;

const TECHNICIAN = {
  type: 'object',
  required: ['id', 'nombre', 'identificador', 'central', 'estado', 'latitud', 'longitud', 'fecha'],
  properties: {
    id: { type: 'integer', description: 'the technician’s id (the socket’s technician.position names it)' },
    nombre: str(255, { description: 'the technician’s names' }),
    identificador: nullable(str(255, { description: 'the technician’s identifier at its central' })),
    central: str(255, { description: 'its central’s name' }),
    estado: { enum: ['libre', 'ocupado', 'no-disponible'], description: 'libre: available and with no service; ocupado: holding a service (D16); no-disponible: reported itself unavailable' },
    latitud: lat('last reported latitude'),
    longitud: lng('last reported longitude'),
    fecha: date('when that position was reported'),
  },
} as const satisfies JSONSchema;

const OFFER = {
  type: 'object',
  required: ['uuid', 'tipo', 'generador', 'direccion', 'latitud', 'longitud', 'cierre'],
  properties: {
    uuid: str(36, { format: 'uuid', description: 'the offer' }),
    tipo: str(255, { description: 'the service type’s name' }),
    generador: str(255, { description: 'who posted it (the generator’s business name)' }),
    direccion: nullable(str(2000, { description: 'the origin’s address' })),
    latitud: lat('the origin’s latitude'),
    longitud: lng('the origin’s longitude'),
    cierre: nullable(date('when its response window closes (the countdown’s end)')),
  },
} as const satisfies JSONSchema;

const SERVICE = {
  type: 'object',
  required: ['uuid', 'codigoServicio', 'estado', 'tipo', 'tecnicoId', 'tecnico', 'tecnicoPosicion', 'destino'],
  properties: {
    uuid: str(36, { format: 'uuid', description: 'the service (its offer)' }),
    codigoServicio: nullable(str(32, { description: 'the service code' })),
    estado: { enum: ['ASIGNADA', 'EN_CAMINO'], description: 'assigned, or the technician is on its way' },
    tipo: str(255, { description: 'the service type’s name' }),
    tecnicoId: { type: ['integer', 'null'], description: 'the assigned technician’s id' },
    tecnico: nullable(str(255, { description: 'the assigned technician’s names' })),
    tecnicoPosicion: nullable({
      type: 'object',
      required: ['latitud', 'longitud', 'fecha'],
      properties: { latitud: lat('the technician’s last latitude'), longitud: lng('the technician’s last longitude'), fecha: date('when it was reported') },
    }),
    destino: {
      type: 'object',
      required: ['latitud', 'longitud', 'direccion'],
      description: 'where the technician goes: the service’s origin',
      properties: { latitud: lat('latitude'), longitud: lng('longitude'), direccion: nullable(str(2000, { description: 'address' })) },
    },
  },
} as const satisfies JSONSchema;

export const operatorLiveMap = operation({
  method: 'get',
  path: `${API}/admin/mapa`,
  operationId: 'operatorLiveMap',
  summary: 'The console’s live map: technicians (free, busy), open offers with their deadline, services on the way (operators, D23)',
  description:
    'Technicians with a position reported in the last 12 hours; every open offer; every service ASIGNADA or EN_CAMINO with its technician’s position and destination (at most 2000 of each). The operator socket keeps it current: `technician.position` and `offer.state`.',
  tag: 'Operadores',
  auth: 'operator',
  envelope: 'controller',
  responses: {
    200: {
      description: 'The map’s data',
      schema: succeeded({
        type: 'object',
        required: ['generadoEn', 'tecnicos', 'ofertas', 'servicios'],
        properties: {
          generadoEn: date('when this was read'),
          tecnicos: { type: 'array', items: TECHNICIAN },
          ofertas: { type: 'array', items: OFFER },
          servicios: { type: 'array', items: SERVICE },
        },
      } as JSONSchema),
    },
  },
  handle: async (rt) => ({ status: true, msg: LIVE_MAP_MESSAGES.ok, data: await readLiveMap(rt.orm.em.fork()) }),
});

export const operatorSocketToken = operation({
  method: 'get',
  path: `${API}/admin/socket-token`,
  operationId: 'operatorSocketToken',
  summary: 'A short-lived token to open the operator socket (`/v3?token=`) from the console, whose session cookie scripts cannot read (D23)',
  tag: 'Operadores',
  auth: 'operator',
  envelope: 'controller',
  responses: {
    200: {
      description: `A JWT good for ${SOCKET_TOKEN_TTL_S} seconds`,
      schema: succeeded({ type: 'object', required: ['token', 'expiresInS'], properties: { token: str(4096, { description: 'the JWT' }), expiresInS: { type: 'integer', description: 'seconds it is good for' } } } as JSONSchema),
    },
  },
  handle: async (rt, caller) => {
    const op = caller.operator;
    if (!op) throw new Error('operation reached without an authenticated operator');
    // carries the session's end: the socket it opens lives as long as the session, not the token (D24, SOCK-8)
    const token = await signOperatorToken(op, rt.config.jwtSecret, `${SOCKET_TOKEN_TTL_S}s`, { session: true });
    return { status: true, msg: LIVE_MAP_MESSAGES.token, data: { token, expiresInS: SOCKET_TOKEN_TTL_S } };
  },
});
