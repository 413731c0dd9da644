/**
 * The customer's side (issue 9, D13, D14): tracking and chat, every route
 * behind the D13 integrity check (`integrity: true`).
 */
import type { ErrorObject } from 'ajv';
import type { JSONSchema } from 'json-schema-to-ts';
import { assertChatOpen, chatStats, listMessages, markRead, sendMessage, unreadCounts } from '../../domain/chat/chat.js';
import { DomainError } from '../../domain/errors.js';
import { requestTrackingCode as requestCode, verifyTrackingCode } from '../../domain/tracking/codes.js';
import { followUp } from '../../domain/tracking/followUp.js';
import { TRACKING_MESSAGES as M } from './messages.js';
import { submitSurvey } from '../../domain/tracking/survey.js';
import { MAX_SHARE_LINKS, issueShareToken, resolveShareToken, signOutTracking } from '../../domain/tracking/tokens.js';
import { trackingAttempt } from './attempts.js';
import { ControllerError, str } from '../document/components.js';
import { API, named, operation, type Caller } from '../operation.js';

/** The 400 message naming the first bad field. */
export function trackingFieldMessage(e: ErrorObject): string {
  const field = e.keyword === 'required' ? (e.params as { missingProperty: string }).missingProperty : e.instancePath.slice(1);
  if (field === '') return 'EL CUERPO DE LA SOLICITUD DEBE SER UN OBJETO JSON';
  if (e.keyword === 'required') return `EL CAMPO '${field}' ES REQUERIDO`;
  if (field === 'rating') return "EL CAMPO 'rating' DEBE SER UN ENTERO DE 1 A 5";
  if (e.keyword === 'maxLength') return `EL CAMPO '${field}' EXCEDE LA LONGITUD MÁXIMA DE ${(e.params as { limit: number }).limit} CARACTERES`;
  return `EL CAMPO '${field}' NO ES VÁLIDO`;
}

const fieldOf = (e: ErrorObject): string => (e.keyword === 'required' ? (e.params as { missingProperty: string }).missingProperty : e.instancePath.slice(1));

const CHAT_FIELD_MESSAGES: Record<string, string> = {
  texto: "EL CAMPO 'texto' DEBE TENER ENTRE 1 Y 2000 CARACTERES Y NO ESTAR EN BLANCO",
  clientId: "EL CAMPO 'clientId' DEBE SER UN TEXTO DE HASTA 64 CARACTERES",
  before: "EL PARÁMETRO 'before' DEBE SER EL ID DE UN MENSAJE",
  limit: "EL PARÁMETRO 'limit' DEBE SER UN ENTERO DE 1 A 100",
  hasta: "EL CAMPO 'hasta' DEBE SER EL ID DE UN MENSAJE",
};

/** A failure of ajv's shape, for the examples of the wording above. */
const requiredError = (field: string) => ({ keyword: 'required', params: { missingProperty: field }, instancePath: '' }) as unknown as ErrorObject;
const fieldError = (field: string) => ({ keyword: 'minimum', params: {}, instancePath: `/${field}` }) as unknown as ErrorObject;

const chatInvalid = { message: (e: ErrorObject) => CHAT_FIELD_MESSAGES[fieldOf(e)] ?? 'EL CUERPO DE LA SOLICITUD DEBE SER UN OBJETO JSON' };

/** The chat's service and viewer, from the chat authentication (D14). */
function chatOf(caller: Caller): NonNullable<Caller['chat']> {
  if (!caller.chat) throw new Error('chat operation without chat authentication');
  return caller.chat;
}

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
      properties: {
        nombre: { ...str(255), description: 'the technician’s names (the public form: the first name only)' },
        telefono: { type: ['string', 'null'], maxLength: 64, description: 'the technician’s phone (not in the public form)' },
        identificador: { type: ['string', 'null'], maxLength: 255, description: 'the identifier the central gave the technician (e.g. GA-07)' },
      },
    },
    central: { type: ['object', 'null'], required: ['nombre'], properties: { nombre: str(255) } },
    posicionTecnico: {
      type: ['object', 'null'],
      required: ['latitud', 'longitud'],
      properties: { latitud: { type: 'number' }, longitud: { type: 'number' }, fecha: { type: ['string', 'null'], maxLength: 64 } },
    },
    etaMinutos: { type: ['integer', 'null'], description: 'whole minutes from now to `llegada.hora` (0 once due)' },
    llegada: {
      type: ['object', 'null'],
      required: ['hora', 'fuente'],
      description: 'the expected arrival while ASIGNADA or EN_CAMINO (decisions CUS-2)',
      properties: {
        hora: { ...date, description: 'the expected arrival, a clock time' },
        fuente: { enum: ['tecnico', 'distancia'], description: '`tecnico`: the technician’s tiempoLlegadaSitio counted from when it was given; `distancia`: from the last position, the distance left at a plausible speed' },
      },
    },
    distanciaMetros: { type: ['integer', 'null'], description: 'straight-line metres from the technician’s last position to the origin, while EN_CAMINO' },
    placa: { type: ['string', 'null'], maxLength: 255, description: 'the vehicle’s plate from POST /asignacion (not in the public form)' },
    aseguradora: {
      type: 'object',
      required: ['nombre', 'lineaAyuda'],
      description: 'the generator (the insurer) the customer deals with',
      properties: { nombre: str(255), lineaAyuda: { type: ['string', 'null'], maxLength: 32, description: 'its help line for customers, from its profile (`helpLine`)' } },
    },
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
  tecnico: { nombre: 'Carlos Pérez', telefono: '3001234567', identificador: 'GN-07' },
  central: { nombre: 'Grúas del Norte' },
  posicionTecnico: { latitud: 4.6584, longitud: -74.0937, fecha: '2026-11-24T05:10:00.000Z' },
  etaMinutos: 12,
  llegada: { hora: '2026-11-24T05:22:00.000Z', fuente: 'distancia' },
  distanciaMetros: 4350,
  placa: 'WNX482',
  aseguradora: { nombre: 'Aseguradora Andina S.A.', lineaAyuda: '+57 601 555 0199' },
  origen: { direccion: 'Calle 100 # 15-20', puntoReferencia: 'Frente al parque', latitud: 4.6868, longitud: -74.0541, ciudad: 'Bogotá', departamento: 'Cundinamarca' },
  destino: null,
  encuestaRespondida: false,
};
/** The public form (a share link, D24) drops the technician (name, phone, identifier, position, distance), the plate, addresses and reference points (followUp). */
const { placa: _placa, ...EXAMPLE_WITHOUT_PLATE } = EXAMPLE_SERVICE;
const EXAMPLE_PUBLIC_SERVICE = {
  ...EXAMPLE_WITHOUT_PLATE,
  tecnico: null,
  posicionTecnico: null,
  distanciaMetros: null,
  origen: { ciudad: 'Bogotá', departamento: 'Cundinamarca' },
};
const EXAMPLE_MESSAGE = { id: 42, autor: 'cliente', texto: '¿Cuánto falta para que llegue?', clientId: 'c-1764000000000', enviadoEn: '2026-11-24T05:11:00.000Z', leidoEn: null };

const notFound = refusal('Unknown expediente, or one the caller takes no part in (the same answer)', { notFound: M.notFound });
const invalidBody = refusal('Invalid body', { invalid: trackingFieldMessage(requiredError('expediente')) });

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
    200: ok('Requested (sent only when the phone matches)', null, M.codeRequested),
    400: invalidBody,
    429: refusal('More than 3 requests for this expediente in 10 minutes, or more than TRACKING_LIMIT_IP code requests and checks from this client in TRACKING_LIMIT_WINDOW_S (with Retry-After)', {
      tooMany: M.tooManyCodes,
      tooManyFromClient: M.tooManyAttempts,
    }),
  },
  invalid: { message: trackingFieldMessage },
  handle: async (rt, caller, input) => {
    await trackingAttempt(rt, caller.ip ?? '');
    await requestCode(rt, input);
    return { status: true, msg: M.codeRequested };
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
      M.tracked,
      { token: 'q8Zt3xW0bN2m5Ry7Kc1Vd9Lf4Hs6Jp0Ta2Ge8Ui5Xo', expiresAt: '2026-11-25T05:00:00.000Z', service: EXAMPLE_SERVICE },
    ),
    400: invalidBody,
    401: refusal('A wrong, expired or spent code', { invalid: M.codeInvalid }),
    429: refusal('More than TRACKING_LIMIT_IP code requests and checks from this client in TRACKING_LIMIT_WINDOW_S (with Retry-After)', {
      tooManyFromClient: M.tooManyAttempts,
    }),
  },
  invalid: { message: trackingFieldMessage },
  handle: async (rt, caller, input) => {
    await trackingAttempt(rt, caller.ip ?? '');
    const s = await verifyTrackingCode(rt, input);
    return { status: true, msg: M.tracked, data: { token: s.token, expiresAt: s.expiresAt.toISOString(), service: s.service } };
  },
});

export const shareTracking = operation({
  method: 'post',
  path: `${API}/tracking/share`,
  operationId: 'shareTracking',
  summary: 'A share link: a read-only token for the public follow-up (D24)',
  description: `Given the customer's token, a new token (\`pub_…\`) and its link (GET /seguimiento/publico/{token}; \`url\` when PUBLIC_ORIGIN is set) that only the public view takes (that page and POST /tracking/track/public): no chat, no socket, no survey, no position and no personal data. It lives as long as the customer's token would; at most ${MAX_SHARE_LINKS} live per service.`,
  tag: 'Seguimiento',
  auth: 'none',
  integrity: true,
  envelope: 'controller',
  input: { schema: TrackingTokenInput, from: 'json' },
  responses: {
    200: ok(
      'The share link’s token',
      {
        type: 'object',
        required: ['token', 'expiresAt', 'path', 'url'],
        properties: { token: str(128), expiresAt: date, path: str(256), url: { type: ['string', 'null'], maxLength: 512 } },
      },
      M.shared,
      {
        token: 'pub_Jr4kW9sQ2vX7mB1nC8dF3gH6jK0lP5zT2yU7iO4aE1w',
        expiresAt: '2026-11-25T05:00:00.000Z',
        path: '/seguimiento/publico/pub_Jr4kW9sQ2vX7mB1nC8dF3gH6jK0lP5zT2yU7iO4aE1w',
        url: 'https://seguimiento.example.com/seguimiento/publico/pub_Jr4kW9sQ2vX7mB1nC8dF3gH6jK0lP5zT2yU7iO4aE1w',
      },
    ),
    400: invalidBody,
    401: refusal('Unknown, expired or revoked customer token (a share link cannot make another)', { invalid: M.tokenInvalid }),
    429: refusal(`The service already has ${MAX_SHARE_LINKS} live share links (with Retry-After)`, { tooMany: M.tooManyShareLinks(MAX_SHARE_LINKS) }),
  },
  invalid: { message: trackingFieldMessage },
  handle: async (rt, _caller, input) => {
    const share = await issueShareToken(rt.orm.em.fork(), input.token);
    // the link's page (GET /seguimiento/publico/{token}); a full URL when the service knows its public origin
    const path = `/seguimiento/publico/${share.token}`;
    const url = rt.config.publicOrigin ? `${rt.config.publicOrigin}${path}` : null;
    return { status: true, msg: M.shared, data: { token: share.token, expiresAt: share.expiresAt.toISOString(), path, url } };
  },
});

export const trackServicePublic = operation({
  method: 'post',
  path: `${API}/tracking/track/public`,
  operationId: 'trackServicePublic',
  summary: 'The follow-up of a share link, without the technician or personal data (D14, D24)',
  description: 'Takes a share link’s token (POST /tracking/share), not the customer’s: the state, its timeline, the central, the ETA and the cities; never the technician (name, phone, position) nor addresses.',
  tag: 'Seguimiento',
  auth: 'none',
  integrity: true,
  envelope: 'controller',
  input: { schema: TrackingTokenInput, from: 'json' },
  responses: {
    200: ok('The public follow-up', { type: 'object', required: ['service'], properties: { service: ref(TrackedService) } }, M.tracked, {
      service: EXAMPLE_PUBLIC_SERVICE,
    }),
    400: invalidBody,
    401: refusal('Unknown or expired share link, or a customer token instead of one', { invalid: M.tokenInvalid, notAShareLink: M.notAShareLink }),
  },
  invalid: { message: trackingFieldMessage },
  handle: async (rt, _caller, input) => {
    const em = rt.orm.em.fork();
    const session = await resolveShareToken(em, input.token);
    return { status: true, msg: M.tracked, data: { service: await followUp(em, session.offer, { public: true, averageSpeedKmh: rt.config.averageSpeedKmh }) } };
  },
});

export const revokeTracking = operation({
  method: 'post',
  path: `${API}/tracking/revoke`,
  operationId: 'revokeTracking',
  summary: 'Sign out: the customer’s token is revoked and its sockets closed (D24)',
  description: 'The same 200 whether or not the token named anything. From then on the token is refused everywhere (chat, socket, survey, share); its open sockets close with 4401.',
  tag: 'Seguimiento',
  auth: 'none',
  integrity: true,
  envelope: 'controller',
  input: { schema: TrackingTokenInput, from: 'json' },
  responses: {
    200: ok('Revoked (or it named nothing)', null, M.revoked),
    400: invalidBody,
  },
  invalid: { message: trackingFieldMessage },
  handle: async (rt, _caller, input) => {
    await signOutTracking(rt, input.token);
    return { status: true, msg: M.revoked };
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
    200: ok('Recorded', null, M.surveyThanks),
    400: refusal('Invalid body', { rating: trackingFieldMessage(fieldError('rating')) }),
    401: refusal('Unknown or expired token', { invalid: M.tokenInvalid }),
    403: refusal('The service is not finished', { notFinished: M.surveyNotFinished('EN_CAMINO') }),
    409: refusal('Already answered', { twice: M.surveyTwice }),
  },
  invalid: { message: trackingFieldMessage },
  handle: async (rt, _caller, input) => {
    await submitSurvey(rt, input);
    return { status: true, msg: M.surveyThanks };
  },
});

/* ----- chat (D14) ----- */

const chatRefusals = {
  403: refusal('Closed (before ASIGNADA, or 24 h after the end), or read-only for the caller', {
    notAssigned: M.chatNotAssigned('ABIERTA'),
    readOnly: M.chatReadOnly,
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
    200: ok('Sent (or the first message of a repeated clientId)', { type: 'object', required: ['message'], properties: { message: ref(ChatMessageView) } }, M.chatSent, {
      message: EXAMPLE_MESSAGE,
    }),
    400: refusal('Invalid body', { texto: CHAT_FIELD_MESSAGES.texto }),
    ...chatRefusals,
    429: refusal('More than 30 messages in a minute', { tooMany: M.chatTooMany }),
  },
  invalid: chatInvalid,
  handle: async (rt, caller, input) => {
    const { offer, viewer } = chatOf(caller);
    return { status: true, msg: M.chatSent, data: { message: await sendMessage(rt, offer, viewer, input) } };
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
      M.chatHistory,
      { messages: [EXAMPLE_MESSAGE], hasMore: false },
    ),
    400: refusal('Invalid before or limit', { limit: CHAT_FIELD_MESSAGES.limit }),
    ...chatRefusals,
  },
  invalid: chatInvalid,
  handle: async (rt, caller, input) => {
    const { offer, viewer } = chatOf(caller);
    if (viewer.kind === 'cliente' || viewer.kind === 'tecnico') {
      // the customer and the technician read while they may write, and 24 h after the end
      await assertChatOpen(rt.orm.em.fork(), offer);
    }
    const page = { before: input.before === undefined ? undefined : Number(input.before), limit: input.limit === undefined ? 20 : Number(input.limit) };
    return { status: true, msg: M.chatHistory, data: await listMessages(rt.orm.em.fork(), offer, page) };
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
    200: ok('Marked', { type: 'object', required: ['unread'], properties: { unread: { type: 'integer' } } }, M.chatRead, { unread: 0 }),
    400: refusal('Invalid hasta', { hasta: CHAT_FIELD_MESSAGES.hasta }),
    ...chatRefusals,
    404: refusal('Unknown expediente, or `hasta` names no message of this chat', { notFound: M.notFound, unknown: M.chatUnknownMessage('99') }),
  },
  invalid: chatInvalid,
  handle: async (rt, caller, input) => {
    const { offer, viewer } = chatOf(caller);
    return { status: true, msg: M.chatRead, data: await markRead(rt, offer, viewer, input.hasta ?? undefined) };
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
      M.chatUnread,
      { cliente: 0, tecnico: 1 },
    ),
    ...chatRefusals,
  },
  handle: async (rt, caller) => ({ status: true, msg: M.chatUnread, data: await unreadCounts(rt.orm.em.fork(), chatOf(caller).offer) }),
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
      M.chatStats,
      { mensajes: 2, deCliente: 1, deTecnico: 1, primeraRespuestaSegundos: 45, ultimoMensajeEn: '2026-11-24T05:11:45.000Z' },
    ),
    ...chatRefusals,
  },
  handle: async (rt, caller) => ({ status: true, msg: M.chatStats, data: await chatStats(rt.orm.em.fork(), chatOf(caller).offer) }),
});

/** Answer schemas referenced by name from the operations above (collected into the document's components). */
export const CUSTOMER_SCHEMAS = [TrackedService, ChatMessageView];

export const CUSTOMER_OPERATIONS = [
  requestTrackingCode,
  trackService,
  shareTracking,
  trackServicePublic,
  revokeTracking,
  answerSurvey,
  sendChatMessage,
  listChatMessages,
  markChatRead,
  chatUnread,
  chatStatistics,
] as const;

