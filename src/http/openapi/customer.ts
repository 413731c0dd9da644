/**
 * The customer's side (issue 9, D13, D14): tracking and chat, every route
 * behind the D13 integrity check (`integrity: true`). Declared like every
 * other route (operations.ts lists them in OPERATIONS).
 */
import type { JSONSchema } from 'json-schema-to-ts';
import { ControllerError, str } from './components.js';
import { named, operation } from './types.js';

const API = '/api/v3';
const msg = str(2000);
const date = str(64, { format: 'date-time' });
const expedienteParam = { expediente: { description: 'the service: its codigoServicio (SV-XXXXXX) or its offer uuid', maxLength: 64 } };

/* ----- request bodies ----- */

export const TrackingCodeInput = named('TrackingCodeInput', {
  type: 'object',
  required: ['expediente', 'telefono'],
  properties: { expediente: str(64, { minLength: 1 }), telefono: str(32, { minLength: 1 }) },
} as const);
export const TrackingTrackInput = named('TrackingTrackInput', {
  type: 'object',
  required: ['expediente', 'code'],
  properties: { expediente: str(64, { minLength: 1 }), code: str(16, { minLength: 1 }) },
} as const);
export const TrackingTokenInput = named('TrackingTokenInput', {
  type: 'object',
  required: ['token'],
  properties: { token: str(128, { minLength: 1 }) },
} as const);
export const SurveyInput = named('SurveyInput', {
  type: 'object',
  required: ['token', 'rating'],
  properties: {
    token: str(128, { minLength: 1 }),
    rating: { type: 'integer', minimum: 1, maximum: 5 },
    comment: { type: ['string', 'null'], maxLength: 1000 },
  },
} as const);
export const ChatMessageInput = named('ChatMessageInput', {
  type: 'object',
  required: ['texto'],
  properties: { texto: { type: 'string', minLength: 1, maxLength: 2000, pattern: '\\S' }, clientId: { type: ['string', 'null'], maxLength: 64 } },
} as const);
export const ChatPageInput = named('ChatPageInput', {
  type: 'object',
  properties: { before: str(18, { pattern: '^[0-9]{1,18}$' }), limit: str(3, { pattern: '^(?:[1-9][0-9]?|100)$' }) },
} as const);
export const ChatReadInput = named('ChatReadInput', {
  type: 'object',
  properties: { hasta: { type: ['integer', 'null'], minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
} as const);

/* ----- answers ----- */

const place = {
  type: 'object',
  properties: {
    direccion: { type: ['string', 'null'], maxLength: 500 },
    puntoReferencia: { type: ['string', 'null'], maxLength: 500 },
    latitud: { type: ['number', 'null'] },
    longitud: { type: ['number', 'null'] },
    ciudad: { type: ['string', 'null'], maxLength: 255 },
    departamento: { type: ['string', 'null'], maxLength: 255 },
  },
} as const;

export const TrackedService = named('TrackedService', {
  type: 'object',
  required: ['expediente', 'estado', 'timeline', 'tecnico', 'central', 'posicionTecnico', 'etaMinutos', 'origen', 'destino', 'encuestaRespondida'],
  properties: {
    expediente: str(64),
    codigoServicio: { type: ['string', 'null'], maxLength: 32 },
    estado: str(32),
    timeline: { type: 'array', items: { type: 'object', required: ['estado', 'fecha'], properties: { estado: str(32), fecha: date } } },
    tecnico: {
      type: ['object', 'null'],
      required: ['nombre'],
      properties: { nombre: str(255), telefono: { type: ['string', 'null'], maxLength: 64 } },
    },
    central: { type: ['object', 'null'], required: ['nombre'], properties: { nombre: str(255) } },
    posicionTecnico: {
      type: ['object', 'null'],
      required: ['latitud', 'longitud'],
      properties: { latitud: { type: 'number' }, longitud: { type: 'number' }, fecha: { type: ['string', 'null'], maxLength: 64 } },
    },
    etaMinutos: { type: ['integer', 'null'] },
    origen: place,
    destino: { anyOf: [{ type: 'null' }, place] },
    encuestaRespondida: { type: 'boolean' },
  },
} as const satisfies JSONSchema);

export const ChatMessageView = named('ChatMessage', {
  type: 'object',
  required: ['id', 'autor', 'texto', 'clientId', 'enviadoEn', 'leidoEn'],
  properties: {
    id: { type: 'integer' },
    autor: { enum: ['cliente', 'tecnico'] },
    texto: str(2000),
    clientId: { type: ['string', 'null'], maxLength: 64 },
    enviadoEn: date,
    leidoEn: { type: ['string', 'null'], maxLength: 64 },
  },
} as const satisfies JSONSchema);

/** A `{status: true, msg, data?}` answer; `data` is required when it has a schema, so the example carries one (`exampleData`). */
const ok = (description: string, data: JSONSchema | null, example: string, exampleData?: unknown) => ({
  description,
  schema: {
    type: 'object',
    required: data ? ['status', 'msg', 'data'] : ['status', 'msg'],
    properties: { status: { const: true }, msg, ...(data ? { data } : {}) },
  } as JSONSchema,
  examples: { ok: { status: true, msg: example, ...(data ? { data: exampleData } : {}) } },
});
const refusal = (description: string, examples: Record<string, string>) => ({
  description,
  schema: ControllerError,
  examples: Object.fromEntries(Object.entries(examples).map(([k, m]) => [k, { status: false, msg: m }])),
});
const ref = (n: { name: string }): JSONSchema => ({ $ref: `#/components/schemas/${n.name}` }) as JSONSchema;
/* ----- examples of the answers' data (the shapes followUp() and the chat return) ----- */

const EXAMPLE_SERVICE = {
  expediente: 'SV-7K3M9Q',
  codigoServicio: 'SV-7K3M9Q',
  estado: 'EN_CAMINO',
  timeline: [
    { estado: 'ABIERTA', fecha: '2026-11-24T05:00:00.000Z' },
    { estado: 'ASIGNADA', fecha: '2026-11-24T05:01:10.000Z' },
    { estado: 'EN_CAMINO', fecha: '2026-11-24T05:04:00.000Z' },
  ],
  tecnico: { nombre: 'Carlos Pérez', telefono: '3001234567' },
  central: { nombre: 'Grúas del Norte' },
  posicionTecnico: { latitud: 4.6584, longitud: -74.0937, fecha: '2026-11-24T05:10:00.000Z' },
  etaMinutos: 12,
  origen: { direccion: 'Calle 100 # 15-20', puntoReferencia: 'Frente al parque', latitud: 4.6868, longitud: -74.0541, ciudad: 'Bogotá', departamento: 'Cundinamarca' },
  destino: null,
  encuestaRespondida: false,
};
/** The public form drops phones, the surname, addresses and reference points (followUp, D14). */
const EXAMPLE_PUBLIC_SERVICE = {
  ...EXAMPLE_SERVICE,
  tecnico: { nombre: 'Carlos' },
  origen: { ciudad: 'Bogotá', departamento: 'Cundinamarca' },
};
const EXAMPLE_MESSAGE = { id: 42, autor: 'cliente', texto: '¿Cuánto falta para que llegue?', clientId: 'c-1764000000000', enviadoEn: '2026-11-24T05:11:00.000Z', leidoEn: null };

const notFound = refusal('Unknown expediente, or one the caller takes no part in (the same answer)', { notFound: 'EXPEDIENTE NO ENCONTRADO' });
const invalid = refusal('Invalid body', { invalid: "EL CAMPO 'expediente' ES REQUERIDO" });

/* ----- tracking (D14) ----- */

export const requestTrackingCode = operation({
  method: 'post',
  path: `${API}/tracking/requestCode`,
  operationId: 'requestTrackingCode',
  summary: 'Ask for a tracking code by SMS (D14, D16)',
  description:
    'The same 200 whether or not the phone matches the service; a code goes out only when it does. At most 3 requests per expediente in 10 minutes, and TRACKING_LIMIT_IP (30) code requests and checks per client in TRACKING_LIMIT_WINDOW_S (600 s).',
  tag: 'Seguimiento',
  auth: 'none',
  integrity: true,
  envelope: 'controller',
  input: { schema: TrackingCodeInput, from: 'json' },
  responses: {
    200: ok('Requested (sent only when the phone matches)', null, 'SI LOS DATOS CORRESPONDEN A UN SERVICIO, RECIBIRÁ UN CÓDIGO POR SMS EN EL TELÉFONO REGISTRADO'),
    400: invalid,
    429: refusal('More than 3 requests for this expediente in 10 minutes, or more than TRACKING_LIMIT_IP code requests and checks from this client in TRACKING_LIMIT_WINDOW_S (with Retry-After)', {
      tooMany: 'SE HAN SOLICITADO DEMASIADOS CÓDIGOS PARA ESTE EXPEDIENTE; INTENTE DE NUEVO EN 10 MINUTOS',
      tooManyFromClient: 'DEMASIADAS SOLICITUDES DE SEGUIMIENTO DESDE ESTA CONEXIÓN; INTENTE DE NUEVO MÁS TARDE',
    }),
  },
});

export const trackService = operation({
  method: 'post',
  path: `${API}/tracking/track`,
  operationId: 'trackService',
  summary: 'Trade the SMS code for a tracking token and the follow-up (D14)',
  description: 'Counts against the client’s TRACKING_LIMIT_IP code requests and checks in TRACKING_LIMIT_WINDOW_S, as requestCode does.',
  tag: 'Seguimiento',
  auth: 'none',
  integrity: true,
  envelope: 'controller',
  input: { schema: TrackingTrackInput, from: 'json' },
  responses: {
    200: ok(
      'The token and the follow-up',
      { type: 'object', required: ['token', 'expiresAt', 'service'], properties: { token: str(128), expiresAt: date, service: ref(TrackedService) } },
      'SEGUIMIENTO DEL SERVICIO',
      { token: 'q8Zt3xW0bN2m5Ry7Kc1Vd9Lf4Hs6Jp0Ta2Ge8Ui5Xo', expiresAt: '2026-11-25T05:00:00.000Z', service: EXAMPLE_SERVICE },
    ),
    400: invalid,
    401: refusal('A wrong, expired or spent code', { invalid: 'EL CÓDIGO NO ES VÁLIDO O YA EXPIRÓ; SOLICITE UNO NUEVO' }),
    429: refusal('More than TRACKING_LIMIT_IP code requests and checks from this client in TRACKING_LIMIT_WINDOW_S (with Retry-After)', {
      tooManyFromClient: 'DEMASIADAS SOLICITUDES DE SEGUIMIENTO DESDE ESTA CONEXIÓN; INTENTE DE NUEVO MÁS TARDE',
    }),
  },
});

export const trackServicePublic = operation({
  method: 'post',
  path: `${API}/tracking/track/public`,
  operationId: 'trackServicePublic',
  summary: 'The follow-up without personal data (D14)',
  tag: 'Seguimiento',
  auth: 'none',
  integrity: true,
  envelope: 'controller',
  input: { schema: TrackingTokenInput, from: 'json' },
  responses: {
    200: ok('The public follow-up', { type: 'object', required: ['service'], properties: { service: ref(TrackedService) } }, 'SEGUIMIENTO DEL SERVICIO', {
      service: EXAMPLE_PUBLIC_SERVICE,
    }),
    400: invalid,
    401: refusal('Unknown or expired token', { invalid: 'EL TOKEN DE SEGUIMIENTO NO ES VÁLIDO O YA EXPIRÓ' }),
  },
});

export const answerSurvey = operation({
  method: 'post',
  path: `${API}/tracking/surveyresponse`,
  operationId: 'answerSurvey',
  summary: 'The customer rates the finished service, once (D14)',
  tag: 'Seguimiento',
  auth: 'none',
  integrity: true,
  envelope: 'controller',
  input: { schema: SurveyInput, from: 'json' },
  responses: {
    200: ok('Recorded', null, 'GRACIAS POR RESPONDER LA ENCUESTA'),
    400: refusal('Invalid body', { rating: "EL CAMPO 'rating' DEBE SER UN ENTERO DE 1 A 5" }),
    401: refusal('Unknown or expired token', { invalid: 'EL TOKEN DE SEGUIMIENTO NO ES VÁLIDO O YA EXPIRÓ' }),
    403: refusal('The service is not finished', { notFinished: 'LA ENCUESTA SE PUEDE RESPONDER CUANDO EL SERVICIO ESTÉ FINALIZADO (ESTADO ACTUAL: EN_CAMINO)' }),
    409: refusal('Already answered', { twice: 'LA ENCUESTA DE ESTE SERVICIO YA FUE RESPONDIDA' }),
  },
});

/* ----- chat (D14) ----- */

const chatRefusals = {
  403: refusal('Closed (before ASIGNADA, or 24 h after the end), or read-only for the caller', {
    notAssigned: 'EL CHAT SE ABRE CUANDO EL SERVICIO ESTÁ ASIGNADO (ESTADO ACTUAL: ABIERTA)',
    readOnly: 'EL GENERADOR Y LOS OPERADORES SOLO PUEDEN LEER ESTE CHAT',
  }),
  404: notFound,
};

export const sendChatMessage = operation({
  method: 'post',
  path: `${API}/chat/{expediente}/messages`,
  operationId: 'sendChatMessage',
  summary: 'Send a chat message (customer or assigned technician)',
  tag: 'Chat',
  auth: 'chat',
  integrity: true,
  envelope: 'controller',
  pathParams: expedienteParam,
  input: { schema: ChatMessageInput, from: 'json' },
  responses: {
    200: ok('Sent (or the first message of a repeated clientId)', { type: 'object', required: ['message'], properties: { message: ref(ChatMessageView) } }, 'MENSAJE ENVIADO', {
      message: EXAMPLE_MESSAGE,
    }),
    400: refusal('Invalid body', { texto: "EL CAMPO 'texto' DEBE TENER ENTRE 1 Y 2000 CARACTERES" }),
    ...chatRefusals,
    429: refusal('More than 30 messages in a minute', { tooMany: 'SE ENVIARON DEMASIADOS MENSAJES; ESPERE UN MINUTO' }),
  },
});

export const listChatMessages = operation({
  method: 'get',
  path: `${API}/chat/{expediente}/messages`,
  operationId: 'listChatMessages',
  summary: 'Chat history, newest page first; `before` pages back (oldest first within a page)',
  tag: 'Chat',
  auth: 'chat',
  integrity: true,
  envelope: 'controller',
  pathParams: expedienteParam,
  input: { schema: ChatPageInput, from: 'jsonOrQuery' },
  responses: {
    200: ok(
      'A page of messages',
      { type: 'object', required: ['messages', 'hasMore'], properties: { messages: { type: 'array', items: ref(ChatMessageView) }, hasMore: { type: 'boolean' } } },
      'MENSAJES DEL CHAT',
      { messages: [EXAMPLE_MESSAGE], hasMore: false },
    ),
    400: refusal('Invalid before or limit', { limit: "EL PARÁMETRO 'limit' DEBE SER UN ENTERO DE 1 A 100" }),
    ...chatRefusals,
  },
});

export const markChatRead = operation({
  method: 'put',
  path: `${API}/chat/{expediente}/read`,
  operationId: 'markChatRead',
  summary: 'Mark the other side’s messages read, up to `hasta` (default: all)',
  tag: 'Chat',
  auth: 'chat',
  integrity: true,
  envelope: 'controller',
  pathParams: expedienteParam,
  input: { schema: ChatReadInput, from: 'json' },
  responses: {
    200: ok('Marked', { type: 'object', required: ['unread'], properties: { unread: { type: 'integer' } } }, 'MENSAJES MARCADOS COMO LEÍDOS', { unread: 0 }),
    400: refusal('Invalid hasta', { hasta: "EL CAMPO 'hasta' DEBE SER EL ID DE UN MENSAJE" }),
    ...chatRefusals,
    404: refusal('Unknown expediente, or `hasta` names no message of this chat', { notFound: 'EXPEDIENTE NO ENCONTRADO', unknown: 'EL MENSAJE 99 NO EXISTE EN ESTE CHAT' }),
  },
});

export const chatUnread = operation({
  method: 'get',
  path: `${API}/chat/{expediente}/unread`,
  operationId: 'chatUnread',
  summary: 'Unread counters of both sides',
  tag: 'Chat',
  auth: 'chat',
  integrity: true,
  envelope: 'controller',
  pathParams: expedienteParam,
  responses: {
    200: ok(
      'cliente: what the customer has not read; tecnico: what the technician has not',
      { type: 'object', required: ['cliente', 'tecnico'], properties: { cliente: { type: 'integer' }, tecnico: { type: 'integer' } } },
      'MENSAJES NO LEÍDOS',
      { cliente: 0, tecnico: 1 },
    ),
    ...chatRefusals,
  },
});

export const chatStatistics = operation({
  method: 'get',
  path: `${API}/chat/{expediente}/stats`,
  operationId: 'chatStatistics',
  summary: 'Chat statistics: counts, first response time, last message',
  tag: 'Chat',
  auth: 'chat',
  integrity: true,
  envelope: 'controller',
  pathParams: expedienteParam,
  responses: {
    200: ok(
      'The statistics',
      {
        type: 'object',
        required: ['mensajes', 'deCliente', 'deTecnico', 'primeraRespuestaSegundos', 'ultimoMensajeEn'],
        properties: {
          mensajes: { type: 'integer' },
          deCliente: { type: 'integer' },
          deTecnico: { type: 'integer' },
          primeraRespuestaSegundos: { type: ['integer', 'null'] },
          ultimoMensajeEn: { type: ['string', 'null'], maxLength: 64 },
        },
      },
      'ESTADÍSTICAS DEL CHAT',
      { mensajes: 2, deCliente: 1, deTecnico: 1, primeraRespuestaSegundos: 45, ultimoMensajeEn: '2026-11-24T05:11:45.000Z' },
    ),
    ...chatRefusals,
  },
});

/** Answer schemas referenced by name from the operations above (collected into the document's components). */
export const CUSTOMER_SCHEMAS = [TrackedService, ChatMessageView];

export const CUSTOMER_OPERATIONS = [
  requestTrackingCode,
  trackService,
  trackServicePublic,
  answerSurvey,
  sendChatMessage,
  listChatMessages,
  markChatRead,
  chatUnread,
  chatStatistics,
] as const;

/* ----- the customer page (D14): HTML forms, calling the domain directly (no D13 signature in the browser) ----- */

const page = (description: string) => ({ description, contentType: 'text/html' as const });
const seeOther = (description: string) => ({ description, headers: { Location: { description: 'where the browser goes', schema: str(2048) } } });

export const PageCodeForm = named('TrackingPageCodeForm', {
  type: 'object',
  required: ['expediente', 'telefono'],
  properties: { expediente: str(64, { minLength: 1 }), telefono: str(32, { minLength: 1 }) },
} as const);
export const PageVerifyForm = named('TrackingPageVerifyForm', {
  type: 'object',
  required: ['expediente', 'code'],
  properties: { expediente: str(64, { minLength: 1 }), code: str(16, { minLength: 1 }) },
} as const);
export const PageMessageForm = named('TrackingPageMessageForm', {
  type: 'object',
  required: ['texto'],
  properties: { texto: { type: 'string', minLength: 1, maxLength: 2000, pattern: '\\S' } },
} as const);
export const PageSurveyForm = named('TrackingPageSurveyForm', {
  type: 'object',
  required: ['rating'],
  properties: { rating: str(1, { pattern: '^[1-5]$' }), comment: str(1000) },
} as const);

export const trackingPage = operation({
  method: 'get',
  path: '/seguimiento',
  operationId: 'trackingPage',
  summary: 'The customer page: expediente and phone, or the follow-up once signed in by SMS code (D14)',
  tag: 'Seguimiento',
  auth: 'none',
  envelope: 'html',
  responses: { 200: page('The page') },
});
export const trackingPageCode = operation({
  method: 'post',
  path: '/seguimiento/codigo',
  operationId: 'trackingPageCode',
  summary: 'The page asks for a code by SMS (same rules as POST /tracking/requestCode)',
  tag: 'Seguimiento',
  auth: 'none',
  envelope: 'html',
  input: { schema: PageCodeForm, from: 'form' },
  responses: { 200: page('The code form'), 400: page('The first form again, with the error'), 403: page('Posted from another site'), 429: page('Too many codes for the expediente, or too many attempts from this client') },
});
export const trackingPageVerify = operation({
  method: 'post',
  path: '/seguimiento/verificar',
  operationId: 'trackingPageVerify',
  summary: 'The page checks the code: sets the httpOnly tracking cookie and shows the follow-up',
  tag: 'Seguimiento',
  auth: 'none',
  envelope: 'html',
  input: { schema: PageVerifyForm, from: 'form' },
  responses: {
    303: seeOther('Signed in: to the follow-up'),
    400: page('Invalid form'),
    401: page('Wrong or expired code'),
    403: page('Posted from another site'),
    429: page('Too many attempts from this client'),
  },
});
export const trackingPagePart = operation({
  method: 'get',
  path: '/seguimiento/parcial',
  operationId: 'trackingPagePart',
  summary: 'The live parts of the follow-up (state, messages, survey), fetched by the page’s script',
  tag: 'Seguimiento',
  auth: 'none',
  envelope: 'html',
  responses: { 200: page('The fragment'), 401: page('No valid tracking cookie') },
});
export const trackingPageMessage = operation({
  method: 'post',
  path: '/seguimiento/mensaje',
  operationId: 'trackingPageMessage',
  summary: 'The page sends a chat message as the customer',
  tag: 'Seguimiento',
  auth: 'none',
  envelope: 'html',
  input: { schema: PageMessageForm, from: 'form' },
  responses: {
    303: seeOther('Sent: back to the follow-up'),
    400: page('Invalid message'),
    401: page('No valid tracking cookie'),
    403: page('Chat closed, or posted from another site'),
    429: page('Too many messages'),
  },
});
export const trackingPageSurvey = operation({
  method: 'post',
  path: '/seguimiento/encuesta',
  operationId: 'trackingPageSurvey',
  summary: 'The page sends the survey once the service is finished',
  tag: 'Seguimiento',
  auth: 'none',
  envelope: 'html',
  input: { schema: PageSurveyForm, from: 'form' },
  responses: {
    303: seeOther('Recorded: back to the follow-up'),
    400: page('Invalid form'),
    401: page('No valid tracking cookie'),
    403: page('Not finished, or posted from another site'),
    409: page('Already answered'),
  },
});
export const trackingPageLogout = operation({
  method: 'post',
  path: '/seguimiento/salir',
  operationId: 'trackingPageLogout',
  summary: 'The page forgets the tracking cookie',
  tag: 'Seguimiento',
  auth: 'none',
  envelope: 'html',
  responses: { 303: seeOther('To the first form'), 403: page('Posted from another site') },
});
export const trackingPageScript = operation({
  method: 'get',
  path: '/seguimiento/app.js',
  operationId: 'trackingPageScript',
  summary: 'The page’s script: live updates and the chat without reloading',
  tag: 'Seguimiento',
  auth: 'none',
  envelope: 'html',
  responses: { 200: { description: 'The script', contentType: 'application/javascript' } },
});

export const PAGE_OPERATIONS = [
  trackingPage,
  trackingPageCode,
  trackingPageVerify,
  trackingPagePart,
  trackingPageMessage,
  trackingPageSurvey,
  trackingPageLogout,
  trackingPageScript,
] as const;
