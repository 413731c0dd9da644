/**
 * Every route of the service, declared once (D19): the router (router.ts)
 * mounts these and the OpenAPI document (document.ts) describes them. The
 * texts in the examples are the spec's (section 4, 5, 7), accents kept.
 * Error statuses every route shares (malformed JSON, 408, 413, 415, the
 * authentication failures, 500) are added by document.ts from `auth` and
 * `envelope`, so only each route's own answers are listed here.
 */
import type { JSONSchema } from 'json-schema-to-ts';
import { AcceptanceAnswer, ControllerError, Done, OfferResponseEntry, RateLimited, RouteNotFound, ref, str } from './components.js';
import {
  AcceptanceInput,
  AssignmentInput,
  DirectAssignmentInput,
  FinalizeInput,
  HistoryInput,
  LoginInput,
  OfferInput,
  OfferResponsesInput,
  PositionInput,
  ProgressInput,
  StopInput,
  WithdrawalInput,
} from './requests.js';
import { operation, type OperationDecl } from './types.js';
import { CUSTOMER_OPERATIONS, PAGE_OPERATIONS } from './customer.js';
import { DELIVERY_OPERATIONS } from './deliveries.js';

export const API = '/api/v3';

const msg = str(2000);
const controller = (description: string, examples: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  description,
  schema: ControllerError,
  examples: Object.fromEntries(Object.entries(examples).map(([k, m]) => [k, { status: false, msg: m, ...extra }])),
});
const acceptance = (description: string, examples: Record<string, string>, ok = false) => ({
  description,
  schema: AcceptanceAnswer,
  examples: Object.fromEntries(Object.entries(examples).map(([k, m]) => [k, { status: ok, data: m }])),
});
/** A `Done` answer; `extra` fields are required, so the example carries a value of each (`extraExample`). */
const done = (description: string, example: string, extra: Record<string, JSONSchema> = {}, extraExample: Record<string, unknown> = {}) => ({
  description,
  schema: Object.keys(extra).length
    ? ({ allOf: [ref(Done), { type: 'object', required: Object.keys(extra), properties: extra }] } as JSONSchema)
    : Done,
  examples: { ok: { status: true, msg: example, ...extraExample } },
});
const nullable = (s: JSONSchema): JSONSchema => ({ anyOf: [s, { type: 'null' }] }) as JSONSchema;
const date = str(64, { format: 'date-time' });

/** One stop of a service, as POST /add-address stores and answers it (db Stop). */
const STOP = {
  type: 'object',
  required: ['direccion', 'latitud', 'longitud', 'puntoReferencia', 'ciudad', 'departamento', 'addedAt'],
  properties: {
    direccion: nullable(str(500)),
    latitud: { type: 'number' },
    longitud: { type: 'number' },
    puntoReferencia: nullable(str(500)),
    ciudad: nullable(str(255)),
    departamento: nullable(str(255)),
    addedAt: date,
  },
} as const satisfies JSONSchema;

/** One recipient of an offer as operators see it (domain/distribution/recipients.ts RecipientView). */
const RECIPIENT = {
  type: 'object',
  required: ['kind', 'channel', 'central', 'technician', 'distanceKm', 'selectedAt', 'sentAt', 'push'],
  properties: {
    kind: { enum: ['central', 'technician'] },
    channel: { enum: ['http', 'none', 'realtime'] },
    central: { type: 'object', required: ['nit', 'name'], properties: { nit: str(255), name: str(255) } },
    technician: nullable({ type: 'object', required: ['dni', 'names'], properties: { dni: str(255), names: str(255) } }),
    distanceKm: { type: ['number', 'null'] },
    selectedAt: date,
    sentAt: nullable(date),
    push: nullable({
      type: 'object',
      required: ['state', 'url', 'statusCode', 'latencyMs', 'error'],
      properties: {
        state: str(16),
        url: str(2048),
        statusCode: { type: ['integer', 'null'] },
        latencyMs: { type: ['integer', 'null'] },
        error: nullable(str(4096)),
      },
    }),
  },
} as const satisfies JSONSchema;

const html = (description: string) => ({ description, contentType: 'text/html' as const });
const redirect = (description: string) => ({
  description,
  headers: { Location: { description: 'where the browser goes', schema: str(2048) } },
});

/* ----- Offers (spec 4.1–4.3) ----- */

export const createOffer = operation({
  method: 'post',
  path: `${API}/oferta`,
  operationId: 'createOffer',
  summary: 'Publish an offer of service (spec 4.1)',
  description: 'Opens the 30-second response window (D1) and distributes the offer to the centrals and technicians that cover its origin.',
  tag: 'Ofertas',
  auth: 'basic',
  envelope: 'controller',
  input: { schema: OfferInput, from: 'json' },
  responses: {
    200: {
      description: 'Offer received, or the uuid is already under evaluation (with the responses so far)',
      schema: {
        type: 'object',
        required: ['status', 'msg'],
        properties: {
          status: { const: true },
          msg,
          data: {
            type: 'object',
            required: ['uuid', 'offersResponses'],
            properties: { uuid: str(36), offersResponses: { type: 'array', items: ref(OfferResponseEntry) } },
          },
        },
      },
      examples: {
        received: { status: true, msg: 'SE HA RECIBIDO EXITOSAMENTE LA OFERTA DEL SERVICIO' },
        processing: { status: true, msg: 'LA OFERTA YA ESTÁ SIENDO PROCESADA', data: { uuid: '0b8f6f7e-3c1a-4d2b-9e5f-1a2b3c4d5e6f', offersResponses: [] } },
      },
    },
    400: controller('Missing or invalid data, an address that cannot be geocoded, or a uuid already offered', {
      uuidMissing: "NO SE RECIBIÓ EL CAMPO 'uuid', REQUERIDO PARA EJECUTAR LA OFERTA DEL SERVICIO",
      originMissing: 'ES NECESARIO LOS DATOS DE LA DIRECCIÓN DE ORIGEN O LAS COORDENADAS DE LA MISMA',
      originNotFound: 'LA DIRECCIÓN DE ORIGEN NO FUE POSIBLE IDENTIFICARLA, POR FAVOR VERIFICA LOS DATOS',
      typeMissing: "EL CAMPO 'tipoServicio' ES REQUERIDO PARA REALIZAR LA OFERTA DEL SERVICIO",
      alreadyOffered: 'EL SERVICIO YA FUE OFERTADO',
    }),
  },
});

export const getOfferResponses = operation({
  method: 'get',
  path: `${API}/offer-responses`,
  operationId: 'getOfferResponses',
  summary: 'Responses received for an offer (spec 4.2)',
  description: 'The uuid travels in the JSON body of the GET (as the spec sends it) or in the query string.',
  tag: 'Ofertas',
  auth: 'basic',
  envelope: 'controller',
  input: { schema: OfferResponsesInput, from: 'jsonOrQuery' },
  responses: {
    200: {
      description: 'The responses so far (best first) and the accepted one',
      schema: {
        type: 'object',
        required: ['status', 'msg', 'data'],
        properties: {
          status: { const: true },
          msg,
          data: {
            type: 'object',
            required: ['responses', 'accepted'],
            properties: {
              responses: { type: 'array', items: ref(OfferResponseEntry) },
              accepted: { anyOf: [ref(OfferResponseEntry), { type: 'null' }] },
            },
          },
        },
      },
      examples: { open: { status: true, msg: 'RESPUESTAS DE LA OFERTA', data: { responses: [], accepted: null } } },
    },
    400: controller('uuid missing', { missing: 'NO SE HA PROPORCIONADO EL UUID DE LA OFERTA' }, { data: [] }),
    403: controller('Offer not found (or not the caller’s)', { notFound: 'NO SE HA ENCONTRADO LA OFERTA' }, { data: [] }),
  },
});

export const acceptOffer = operation({
  method: 'put',
  path: `${API}/aceptacion`,
  operationId: 'acceptOffer',
  summary: 'A central accepts an offer (spec 4.3, D4)',
  tag: 'Ofertas',
  auth: 'apiKey',
  envelope: 'acceptance',
  input: { schema: AcceptanceInput, from: 'json' },
  failure: 'Error al aceptar la oferta',
  responses: {
    200: acceptance(
      'Response recorded, or assignment confirmed',
      {
        accepted: 'Oferta aceptada',
        paymentPending: 'Oferta aceptada, pero el cliente aún no ha confirmado el método de pago',
        recorded: 'RESPUESTA ACEPTADA, ESPERA POR FAVOR A QUE SE CONFIRME LA ASIGNACIÓN DEL SERVICIO',
      },
      true,
    ),
    400: {
      description: 'Invalid data, offer already accepted or closed, or the generator rejected a late acceptance (its reply as it came)',
      schema: { anyOf: [ref(AcceptanceAnswer), { type: 'object' }] },
      examples: { alreadyAccepted: { status: false, data: 'Oferta ya aceptada' } },
    },
    403: acceptance('The key does not belong to the central named', { notYourCentral: 'LA CLAVE DE ACCESO NO CORRESPONDE AL PRESTADOR' }),
    404: acceptance('Offer, technician or generator profile not found', {
      technician: 'NO SE ENCONTRÓ EL TÉCNICO',
      generator: 'API GENERADOR NO ENCONTRADO',
      offer: 'Oferta no encontrada',
    }),
    500: acceptance('Failure', { failure: 'Error al aceptar la oferta' }),
  },
});

/* ----- Service operations (spec 4.4, 4.8, D6, D8, D11) ----- */

const operationErrors = (failure: string) => ({
  400: controller('Missing or invalid data', {}),
  403: controller('The service is not in a state that allows it', {}),
  404: controller('Offer not found (or not the caller’s)', { notFound: 'OFERTA NO ENCONTRADA' }),
  500: controller('Failure', { failure }),
});

export const confirmAssignment = operation({
  method: 'post',
  path: `${API}/asignacion`,
  operationId: 'confirmAssignment',
  summary: 'The generator confirms the assignment of an accepted offer (spec 4.8, D6)',
  tag: 'Servicio',
  auth: 'basic',
  envelope: 'controller',
  input: { schema: AssignmentInput, from: 'json' },
  failure: 'OCURRIÓ UN ERROR AL PROCESAR LA ASIGNACIÓN DEL SERVICIO',
  responses: {
    200: done('Assignment confirmed, naming the central', 'SE HA CONFIRMADO LA ASIGNACIÓN DEL SERVICIO A LA CENTRAL Grúas del Norte', { codigoServicio: str(32) }, { codigoServicio: 'SV-7K3M9Q' }),
    ...operationErrors('OCURRIÓ UN ERROR AL PROCESAR LA ASIGNACIÓN DEL SERVICIO'),
  },
});

export const withdrawOffer = operation({
  method: 'post',
  path: `${API}/no-asignacion`,
  operationId: 'withdrawOffer',
  summary: 'The service was not taken: the offer is withdrawn (spec 4.8, D6)',
  tag: 'Servicio',
  auth: 'basic',
  envelope: 'controller',
  input: { schema: WithdrawalInput, from: 'json' },
  failure: 'OCURRIÓ UN ERROR AL PROCESAR LA NO ASIGNACIÓN DEL SERVICIO',
  responses: {
    200: done('Withdrawn', 'SE HA RECIBIDO EXITOSAMENTE LA NO ASIGNACIÓN DEL SERVICIO'),
    ...operationErrors('OCURRIÓ UN ERROR AL PROCESAR LA NO ASIGNACIÓN DEL SERVICIO'),
  },
});

export const cancelService = operation({
  method: 'post',
  path: `${API}/cancelacion`,
  operationId: 'cancelService',
  summary: 'Cancel an assigned service (spec 4.8, D6)',
  tag: 'Servicio',
  auth: 'basic',
  envelope: 'controller',
  input: { schema: WithdrawalInput, from: 'json' },
  failure: 'OCURRIÓ UN ERROR AL PROCESAR LA CANCELACIÓN DEL SERVICIO',
  responses: {
    200: done('Cancelled, naming the central', 'SE HA CANCELADO EXITOSAMENTE EL SERVICIO ASIGNADO A LA CENTRAL Grúas del Norte'),
    ...operationErrors('OCURRIÓ UN ERROR AL PROCESAR LA CANCELACIÓN DEL SERVICIO'),
  },
});

export const addAddress = operation({
  method: 'post',
  path: `${API}/add-address`,
  operationId: 'addAddress',
  summary: 'Add a stop to a service (spec 4.8)',
  tag: 'Servicio',
  auth: 'basic',
  envelope: 'controller',
  input: { schema: StopInput, from: 'json' },
  failure: 'OCURRIÓ UN ERROR AL AGREGAR LA DIRECCIÓN DEL SERVICIO',
  responses: {
    200: {
      description: 'Stop added; every stop of the service',
      schema: {
        type: 'object',
        required: ['status', 'msg', 'data'],
        properties: { status: { const: true }, msg, data: { type: 'object', required: ['stops'], properties: { stops: { type: 'array', items: STOP } } } },
      },
      examples: { ok: { status: true, msg: 'SE HA AGREGADO EXITOSAMENTE LA DIRECCIÓN AL SERVICIO', data: { stops: [] } } },
    },
    ...operationErrors('OCURRIÓ UN ERROR AL AGREGAR LA DIRECCIÓN DEL SERVICIO'),
  },
});

export const assignDirectly = operation({
  method: 'post',
  path: `${API}/asignacion-directa`,
  operationId: 'assignDirectly',
  summary: 'Assign a service directly to a named central (spec 4.8, D6)',
  tag: 'Servicio',
  auth: 'basic',
  envelope: 'controller',
  input: { schema: DirectAssignmentInput, from: 'json' },
  failure: 'OCURRIÓ UN ERROR AL PROCESAR LA ASIGNACIÓN DIRECTA DEL SERVICIO',
  responses: {
    200: done(
      'Assigned',
      'SE HA REGISTRADO EXITOSAMENTE LA ASIGNACIÓN DIRECTA DEL SERVICIO A LA CENTRAL Grúas del Norte',
      { codigoServicio: str(32), codigoSolicitud: str(32) },
      { codigoServicio: 'SV-7K3M9Q', codigoSolicitud: 'SL-4HX2PD' },
    ),
    ...operationErrors('OCURRIÓ UN ERROR AL PROCESAR LA ASIGNACIÓN DIRECTA DEL SERVICIO'),
  },
});

export const reportProgress = operation({
  method: 'put',
  path: `${API}/estado-servicio`,
  operationId: 'reportProgress',
  summary: 'The assigned central reports progress: EN_CAMINO, EN_SITIO (D11)',
  tag: 'Servicio',
  auth: 'apiKey',
  envelope: 'acceptance',
  input: { schema: ProgressInput, from: 'json' },
  failure: 'Error al actualizar el estado del servicio',
  responses: {
    200: acceptance('State updated (or already that state)', { updated: 'ESTADO DEL SERVICIO ACTUALIZADO A EN_CAMINO' }, true),
    400: acceptance('Invalid data', { badEstado: "EL CAMPO 'estado' DEBE SER EN_CAMINO O EN_SITIO (LA FINALIZACIÓN SE REGISTRA CON POST /finalize)" }),
    403: acceptance('The service cannot move to that state', { refused: 'NO ES POSIBLE CAMBIAR EL ESTADO A EN_SITIO: EL SERVICIO ESTÁ EN ESTADO FINALIZADA' }),
    404: acceptance('Offer not found (or not assigned to the caller)', { notFound: 'Oferta no encontrada' }),
    500: acceptance('Failure', { failure: 'Error al actualizar el estado del servicio' }),
  },
});

export const updatePosition = operation({
  method: 'put',
  path: `${API}/posicion-tecnico`,
  operationId: 'updateTechnicianPosition',
  summary: 'A central reports one of its technicians’ position and availability (D8)',
  tag: 'Servicio',
  auth: 'apiKey',
  envelope: 'acceptance',
  input: { schema: PositionInput, from: 'json' },
  failure: 'ERROR AL ACTUALIZAR LA POSICIÓN DEL TÉCNICO',
  responses: {
    200: acceptance('Position updated', { ok: 'POSICIÓN DEL TÉCNICO ACTUALIZADA' }, true),
    400: acceptance('Invalid data', { zero: 'LAS COORDENADAS (0, 0) NO SON UNA POSICIÓN VÁLIDA' }),
    404: acceptance('Technician not found among the caller’s', { notFound: 'NO SE ENCONTRÓ EL TÉCNICO' }),
    500: acceptance('Failure', { failure: 'ERROR AL ACTUALIZAR LA POSICIÓN DEL TÉCNICO' }),
  },
});

export const finalizeService = operation({
  method: 'post',
  path: `${API}/finalize`,
  operationId: 'finalizeService',
  summary: 'Finalize a service (spec 4.4)',
  description: 'HTTP Basic, or an operator’s Bearer JWT. Its 401 uses the controller envelope.',
  tag: 'Servicio',
  auth: 'basicOrJwt',
  envelope: 'controller',
  input: { schema: FinalizeInput, from: 'json' },
  failure: 'Ha ocurrido un error interno del servidor, por favor intenta más tarde',
  responses: {
    200: done('Finalized', 'Servicio finalizado exitosamente'),
    400: controller('uuid missing', { missing: 'UUID es requerido' }),
    403: controller('The service is not in an active state', {}),
    404: controller('Unknown service', { notFound: 'Servicio no encontrado' }),
    500: controller('Internal failure', { failure: 'Ha ocurrido un error interno del servidor, por favor intenta más tarde' }),
  },
});

/* ----- Queries (spec 4.5–4.7) ----- */

export const listServiceTypes = operation({
  method: 'get',
  path: `${API}/types`,
  operationId: 'listServiceTypes',
  summary: 'Service types (spec 4.5); a 200 also checks the credentials',
  tag: 'Consultas',
  auth: 'basic',
  envelope: 'controller',
  responses: {
    200: {
      description: 'A bare array of service types (shape 2.4)',
      schema: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'type', 'required_origin', 'required_destination'],
          properties: { id: { type: 'integer' }, type: str(255), required_origin: { type: 'boolean' }, required_destination: { type: 'boolean' } },
        },
      },
      examples: { types: [{ id: 1, type: 'GRUA', required_origin: true, required_destination: true }] },
    },
  },
});

export const queryHistory = operation({
  method: 'post',
  path: `${API}/queries/history`,
  operationId: 'queryHistory',
  summary: 'The caller’s services of a business line (spec 4.6, D7)',
  tag: 'Consultas',
  auth: 'basic',
  envelope: 'controller',
  input: { schema: HistoryInput, from: 'json' },
  failure: 'Ocurrió un error al obtener los datos.',
  responses: {
    200: {
      description: 'One page of records',
      schema: {
        type: 'object',
        required: ['status', 'data', 'msg'],
        properties: {
          status: { const: true },
          msg,
          data: {
            type: 'array',
            items: {
              type: 'object',
              required: ['idServicio', 'estado', 'prestador'],
              properties: { idServicio: str(36), estado: str(20), prestador: { anyOf: [str(255), { type: 'null' }] } },
            },
          },
          pagination: {
            type: 'object',
            required: ['page', 'pageSize', 'total'],
            properties: { page: { type: 'integer' }, pageSize: { type: 'integer' }, total: { type: 'integer' } },
          },
        },
      },
      examples: { ok: { status: true, data: [], msg: 'Datos obtenidos correctamente', pagination: { page: 1, pageSize: 50, total: 0 } } },
    },
    400: controller('Missing or unknown business line, invalid filter', { missingLine: 'La línea de negocio es requerida.' }),
    500: controller('Failure', { failure: 'Ocurrió un error al obtener los datos.' }),
  },
});

const idName = (id: string) => ({ type: 'array', items: { type: 'object', required: [id, 'name'], properties: { [id]: str(255), name: str(255) } } }) as const;

export const historyOptions = operation({
  method: 'get',
  path: `${API}/queries/history-options`,
  operationId: 'historyOptions',
  summary: 'The filters of the history query (spec 4.7)',
  tag: 'Consultas',
  auth: 'basic',
  envelope: 'controller',
  failure: 'Ocurrió un error al obtener los datos.',
  responses: {
    200: {
      description: 'States and centrals',
      schema: {
        type: 'object',
        required: ['status', 'data'],
        properties: {
          status: { const: true },
          data: {
            type: 'object',
            required: ['taskStatus', 'serviceStatus', 'businessNits'],
            properties: { taskStatus: idName('id'), serviceStatus: idName('id'), businessNits: idName('nit') },
          },
        },
      },
    },
    500: controller('Failure', { failure: 'Ocurrió un error al obtener los datos.' }),
  },
});

/* ----- Operators (D15) ----- */

export const login = operation({
  method: 'post',
  path: `${API}/users/login`,
  operationId: 'login',
  summary: 'Operators’ login: a JWT (D15); limited per IP (spec 8)',
  tag: 'Operadores',
  auth: 'none',
  envelope: 'controller',
  input: { schema: LoginInput, from: 'json' },
  responses: {
    200: {
      description: 'Signed in; the JWT is also set as the httpOnly operator cookie',
      schema: {
        type: 'object',
        required: ['status', 'msg', 'data'],
        properties: {
          status: { const: true },
          msg,
          data: {
            type: 'object',
            required: ['token', 'tokenType', 'expiresIn', 'user'],
            properties: {
              token: str(4096),
              tokenType: { const: 'Bearer' },
              expiresIn: str(32),
              user: { type: 'object', required: ['username', 'role'], properties: { username: str(255), role: str(32) } },
            },
          },
        },
      },
    },
    400: controller('Username or password missing', { missing: 'EL USUARIO Y LA CONTRASEÑA SON REQUERIDOS' }),
    401: controller('Wrong credentials', { invalid: 'Las credenciales de acceso no son correctas.' }),
    429: {
      description: 'Too many attempts from this IP (spec 7.3, 8), with Retry-After and the X-RateLimit-* headers',
      schema: RateLimited,
      examples: { limited: { error: 'Demasiadas solicitudes', message: 'Límite de 5 solicitudes excedido', retryAfter: 900, timestamp: '2026-11-24T05:00:00.000Z' } },
    },
  },
});

export const listRecipients = operation({
  method: 'get',
  path: `${API}/admin/offers/{uuid}/recipients`,
  operationId: 'listRecipients',
  summary: 'Who received an offer, when, and how each push went (operators)',
  tag: 'Operadores',
  auth: 'operator',
  envelope: 'controller',
  pathParams: { uuid: { description: 'the offer', maxLength: 64 } },
  responses: {
    200: {
      description: 'The recipients, centrals first',
      schema: {
        type: 'object',
        required: ['status', 'msg', 'data'],
        properties: {
          status: { const: true },
          msg,
          data: { type: 'object', required: ['uuid', 'estado', 'recipients'], properties: { uuid: str(36), estado: str(20), recipients: { type: 'array', items: RECIPIENT } } },
        },
      },
    },
    404: controller('Unknown offer', { notFound: 'OFERTA NO ENCONTRADA' }),
  },
});

export const adminLoginPage = operation({
  method: 'get',
  path: '/admin/login',
  operationId: 'adminLoginPage',
  summary: 'The operators’ login form (HTML)',
  tag: 'Operadores',
  auth: 'none',
  envelope: 'html',
  responses: { 200: html('The form') },
});

export const adminLogin = operation({
  method: 'post',
  path: '/admin/login',
  operationId: 'adminLogin',
  summary: 'Submit the operators’ login form: sets the operator cookie and goes to the queues board',
  tag: 'Operadores',
  auth: 'none',
  envelope: 'html',
  input: { schema: LoginInput, from: 'form' },
  responses: {
    303: redirect('Signed in'),
    400: html('The form again, asking for both fields (or refusing a NUL or a lone surrogate in one)'),
    401: html('The form again: wrong credentials'),
    403: html('The form again: it was posted from another site (login CSRF)'),
    429: html('The form again: too many attempts'),
  },
});

/** Bull Board's pages; mounted by its own Koa adapter (src/http/routes/admin.ts), not by the router. */
export const adminQueues = operation({
  method: 'get',
  path: '/admin/queues',
  operationId: 'adminQueues',
  summary: 'The job queues board (Bull Board), for operators',
  tag: 'Operadores',
  auth: 'operator',
  envelope: 'html',
  responses: { 200: html('The board'), 302: redirect('Not signed in: to the login form') },
});

/* ----- System ----- */

export const health = operation({
  method: 'get',
  path: '/health',
  operationId: 'health',
  summary: 'Liveness and dependencies: 200 when PostgreSQL and Redis answer, 503 otherwise',
  tag: 'Sistema',
  auth: 'none',
  envelope: 'system',
  responses: Object.fromEntries(
    [200, 503].map((status) => [
      status,
      {
        description: status === 200 ? 'Healthy' : 'A dependency is down',
        schema: {
          type: 'object',
          required: ['status', 'postgres', 'redis', 'timestamp'],
          properties: {
            status: { enum: ['ok', 'unavailable'] },
            postgres: { enum: ['ok', 'down'] },
            redis: { enum: ['ok', 'down'] },
            timestamp: str(64, { format: 'date-time' }),
          },
        },
      },
    ]),
  ),
});

export const openApiDocument = operation({
  method: 'get',
  path: `${API}/openapi.json`,
  operationId: 'openApiDocument',
  summary: 'This document (OpenAPI 3.1)',
  tag: 'Sistema',
  auth: 'none',
  envelope: 'system',
  responses: { 200: { description: 'The OpenAPI document', schema: { type: 'object', required: ['openapi', 'paths'] } } },
});

export const asyncApiDocument = operation({
  method: 'get',
  path: `${API}/asyncapi.json`,
  operationId: 'asyncApiDocument',
  summary: 'The WebSocket events (AsyncAPI 3.0), as docs/realtime.md describes them',
  tag: 'Sistema',
  auth: 'none',
  envelope: 'system',
  responses: { 200: { description: 'The AsyncAPI document', schema: { type: 'object', required: ['asyncapi', 'channels'] } } },
});

export const docsPage = operation({
  method: 'get',
  path: `${API}/docs`,
  operationId: 'docsPage',
  summary: 'This document rendered (Swagger UI, served locally)',
  tag: 'Sistema',
  auth: 'none',
  envelope: 'html',
  responses: { 200: html('The page') },
});

export const docsAsset = operation({
  method: 'get',
  path: `${API}/docs/{file}`,
  operationId: 'docsAsset',
  summary: 'The Swagger UI files the page loads (a fixed list)',
  tag: 'Sistema',
  auth: 'none',
  envelope: 'system',
  pathParams: { file: { description: 'one of the page’s files', maxLength: 64 } },
  responses: {
    200: { description: 'The file', contentType: 'application/javascript' },
    404: { description: 'Not one of the page’s files: the unknown-route body (4.9)', schema: RouteNotFound },
  },
});

/** Every route, in the order the document lists them. */
export const OPERATIONS: readonly OperationDecl[] = [
  createOffer,
  getOfferResponses,
  acceptOffer,
  confirmAssignment,
  withdrawOffer,
  cancelService,
  addAddress,
  assignDirectly,
  reportProgress,
  updatePosition,
  finalizeService,
  listServiceTypes,
  queryHistory,
  historyOptions,
  login,
  listRecipients,
  adminLoginPage,
  adminLogin,
  adminQueues,
  health,
  openApiDocument,
  asyncApiDocument,
  docsPage,
  docsAsset,
  ...CUSTOMER_OPERATIONS,
  ...PAGE_OPERATIONS,
  ...DELIVERY_OPERATIONS,
];

/** Operations served by a mounted package rather than the router (the route test skips them in its walk). */
export const MOUNTED_OUTSIDE_ROUTER: ReadonlySet<string> = new Set([adminQueues.operationId]);
