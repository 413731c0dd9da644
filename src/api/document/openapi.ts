/**
 * The OpenAPI 3.1 document (D19), built from the operations' declarations
 * (src/api/operations.ts): paths, request and response schemas, the security schemes
 * of spec 5 and D13, and the outgoing webhooks (6.1, D12). Served at
 * GET /api/v3/openapi.json; request validation compiles its schemas.
 */
import type { JSONSchema } from 'json-schema-to-ts';
import { AUTH_MESSAGES } from '../../auth/credentials.js';
import { TECHNICIAN_AUTH_MESSAGES } from '../../auth/technician.js';
import { TECHNICIAN_TOKEN_MESSAGES } from '../../auth/technicianToken.js';
import { TRACKING_MESSAGES } from '../customer/messages.js';
import { INTEGRITY_MESSAGES, MESSAGES, OPERATOR_LOGIN_REQUIRED } from '../../envelopes.js';
import { CUSTOMER_SCHEMAS } from '../customer/tracking.js';
import { DELIVERY_SCHEMAS } from '../deliveries/deliveries.js';
import { PROVIDER_SCHEMAS } from '../providers/centralServices.js';
import { API, type Auth, type Named, type OperationDecl, type ResponseDecl } from '../operation.js';
import { OPERATIONS } from '../operations.js';
import { ControllerError, DataAnswer, KeyError, RESPONSE_SCHEMAS, RateLimited, SystemError, ref, str } from './components.js';
import { UNAVAILABLE_MESSAGE } from '../../outage.js';
import { GETTING_STARTED } from './gettingStarted.js';
import { FIELD_DESCRIPTIONS, REQUEST_EXAMPLES, describedSchema } from './requestDocs.js';
import { SOCKET_SCHEMAS } from './socket.js';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_MESSAGES, REPLAYED_HEADER, isIdempotent } from '../idempotency.js';
import type { Envelope } from '../../envelopes.js';
import { WEBHOOKS, WEBHOOK_SCHEMAS } from './webhooks.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: JsonObject;
  servers: JsonObject[];
  tags: JsonObject[];
  paths: Record<string, Record<string, JsonObject>>;
  webhooks: Record<string, Record<string, JsonObject>>;
  components: { schemas: Record<string, JsonObject>; securitySchemes: Record<string, JsonObject>; parameters: Record<string, JsonObject> };
}

export const isNamed = (s: Named | JSONSchema): s is Named =>
  typeof s === 'object' && s !== null && 'name' in s && 'schema' in s && typeof (s as Named).name === 'string';

const asJson = (v: unknown): Json => v as Json;

/** Security requirements of each kind of authentication (alternatives). */
const SECURITY: Record<Auth, Array<Record<string, string[]>>> = {
  basic: [{ basicAuth: [] }],
  apiKey: [{ apiKey: [] }],
  basicOrApiKey: [{ basicAuth: [] }, { apiKey: [] }],
  basicOrJwt: [{ bearerJwt: [] }, { basicAuth: [] }],
  operator: [{ bearerJwt: [] }, { operatorCookie: [] }],
  chat: [{ trackingToken: [] }, { technicianToken: [] }, { apiKey: [], dniTecnico: [] }, { basicAuth: [] }, { bearerJwt: [] }],
  apiKeyOrTechnician: [{ technicianToken: [] }, { apiKey: [] }],
  technician: [{ technicianToken: [] }, { apiKey: [], dniTecnico: [] }],
  none: [],
};

const INTEGRITY = { integrityTimestamp: [], integrityNonce: [], integritySignature: [] };

/** The security requirements of an operation: its authentication's, each with the D13 headers when it has `integrity`. */
function securityOf(op: OperationDecl): Array<Record<string, string[]>> {
  const base = SECURITY[op.auth];
  if (!op.integrity) return base;
  return base.length ? base.map((r) => ({ ...INTEGRITY, ...r })) : [INTEGRITY];
}

const SECURITY_SCHEMES = {
  basicAuth: { type: 'http', scheme: 'basic', description: 'HTTP Basic (spec 5.1): the API user’s username and password; failures in the system envelope (7.2).' },
  apiKey: { type: 'apiKey', in: 'header', name: 'x-apikey', description: 'API key (spec 5.2); failures as `{status: false, msg, timestamp}`.' },
  bearerJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An operator’s session from POST /users/login (spec 5.3, D15).' },
  operatorCookie: { type: 'apiKey', in: 'cookie', name: 'operator_token', description: 'The same JWT as an httpOnly cookie, set at login (operator pages).' },
  trackingToken: { type: 'http', scheme: 'bearer', description: 'The customer’s tracking token from POST /tracking/track (D14).' },
  dniTecnico: { type: 'apiKey', in: 'header', name: 'x-dni-tecnico', description: 'With the central’s x-apikey: the technician assigned to the service (D14), or the one calling (D20).' },
  technicianToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'tec_ + 43 base64url characters',
    description:
      'A technician’s own token from POST /tecnicos/token (D20): 12 hours, refused at once when the technician or its central’s API user is INACTIVO or the central’s key changes; failures as `{status: false, msg, timestamp}`.',
  },
  integrityTimestamp: {
    type: 'apiKey',
    in: 'header',
    name: 'x-timestamp',
    description: 'D13 integrity (chat and tracking, spec 5.4): Unix seconds, within 300 s of the server’s clock.',
  },
  integrityNonce: { type: 'apiKey', in: 'header', name: 'x-nonce', description: 'D13 integrity: a unique string of at most 128 characters, not seen in the last 300 s.' },
  integritySignature: {
    type: 'apiKey',
    in: 'header',
    name: 'x-signature',
    description: 'D13 integrity: hex HMAC-SHA256 of `<timestamp>.<nonce>.<METHOD>.<path>.<raw body>` with the client application’s shared secret.',
  },
  // The webhooks' (requests this service sends) security: what the receiver checks (webhooks.ts).
  receiverApiKey: { type: 'apiKey', in: 'header', name: 'x-apikey', description: 'Webhooks: the receiver profile’s own outbound key (`outboundKey`), sent when it has one (spec 6.1, D24); never the key it calls the API with.' },
  receiverSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'x-signature',
    description: 'Webhooks: hex HMAC-SHA256 of `<x-timestamp>.<raw body>` with the receiver’s webhook secret, sent (with x-timestamp) when it has one (D5, D17).',
  },
} as const;

const AUTH_MESSAGES_EXAMPLES = {
  basic401: [AUTH_MESSAGES.basicMissing, AUTH_MESSAGES.basicInvalid],
  basic403: [AUTH_MESSAGES.basicInactive, AUTH_MESSAGES.basicForbidden],
  key401: [AUTH_MESSAGES.keyMissing, AUTH_MESSAGES.keyInvalid],
  key403: [AUTH_MESSAGES.keyForbidden],
  key500: [AUTH_MESSAGES.keyInternal],
};

const systemExamples = (messages: string[]) =>
  Object.fromEntries(messages.map((m, i) => [`e${i + 1}`, { error: true, message: m, errorId: 'err_1764000000000_a1b2c3d4e5', timestamp: '2026-11-24T05:00:00.000Z' }]));
const keyExamples = (messages: string[]) => Object.fromEntries(messages.map((m, i) => [`e${i + 1}`, { status: false, msg: m, timestamp: '2026-11-24T05:00:00.000Z' }]));

const sys = (description: string, messages: string[] = []): ResponseDecl => ({ description, schema: SystemError, examples: systemExamples(messages) });

/** The answers every route of a kind shares: the edge's (body parsing, timeout, crash) and its authentication's. */
export function sharedResponses(op: OperationDecl): Record<number, ResponseDecl> {
  const out: Record<number, ResponseDecl> = {
    408: sys('The request exceeded the timeout (spec 8)', [MESSAGES.timeout]),
    500: sys('Unhandled error', [MESSAGES.internal]),
    // D21: PostgreSQL or Redis away, in the route's envelope (a key check's in the key envelope)
    503: {
      description: 'PostgreSQL or Redis is away for a moment (D21): try again after Retry-After',
      schema: { anyOf: [ref(ControllerError), ref(SystemError), ref(KeyError), ref(DataAnswer)] },
      examples: { unavailable: { status: false, msg: UNAVAILABLE_MESSAGE } },
      headers: { 'Retry-After': { description: 'seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } } },
    },
  };
  const parsesBody = (op.path.startsWith(`${API}/`) && op.envelope !== 'html' && !DOCUMENT_PATHS.has(op.path)) || op.input?.from === 'form';
  if (parsesBody) {
    out[400] = { description: 'The body cannot be read (not valid JSON)', schema: ControllerError, examples: { malformed: { status: false, msg: MESSAGES.malformedJson } } };
    out[413] = sys('The body exceeds the size limit', [MESSAGES.bodyTooLarge]);
    out[415] = {
      description: 'The body is not JSON, or its encoding is not supported',
      schema: ControllerError,
      examples: { notJson: { status: false, msg: MESSAGES.unsupportedMediaType } },
    };
  }
  /** A second body a status may come with (the first one's or this one). */
  const alternative = (status: number, alt: ResponseDecl) => {
    const first = out[status];
    out[status] = first?.schema && alt.schema
      ? { description: `${first.description}; or: ${alt.description}`, schema: { anyOf: [schemaOf(first.schema), schemaOf(alt.schema)] }, examples: { ...(first.examples ?? {}), ...(alt.examples ?? {}) } }
      : alt;
  };
  switch (op.auth) {
    case 'basic':
      alternative(400, sys('Basic credentials with a NUL or a lone surrogate (D19)', [AUTH_MESSAGES.basicUnstorable]));
      out[401] = sys('Basic credentials missing or wrong (spec 5.1)', AUTH_MESSAGES_EXAMPLES.basic401);
      out[403] = sys('API user inactive, or the endpoint is not enabled for it (spec 5.1)', AUTH_MESSAGES_EXAMPLES.basic403);
      out[429] = { description: 'Too many failed authentications (D19)', schema: { anyOf: [ref(SystemError), ref(RateLimited)] } };
      break;
    case 'apiKey':
    case 'apiKeyOrTechnician':
    case 'technician':
      alternative(400, { description: 'A key or x-dni-tecnico with a NUL or a lone surrogate (D19)', schema: KeyError, examples: keyExamples([AUTH_MESSAGES.keyUnstorable]) });
      out[401] = { description: 'Key missing, wrong, or its user inactive (spec 5.2)', schema: KeyError, examples: keyExamples(AUTH_MESSAGES_EXAMPLES.key401) };
      out[403] = { description: 'The endpoint is not enabled for the key (spec 5.2)', schema: KeyError, examples: keyExamples(AUTH_MESSAGES_EXAMPLES.key403) };
      out[500] = { description: 'Internal failure of the key check (spec 5.2), or unhandled error', schema: { anyOf: [ref(KeyError), ref(SystemError)] } };
      out[429] = { description: 'Too many failed authentications (D19)', schema: { anyOf: [ref(KeyError), ref(RateLimited)] } };
      if (op.auth !== 'apiKey') {
        // D20: the technician's token, refused in the key envelope
        alternative(401, { description: 'The technician’s token unknown, expired or revoked (D20)', schema: KeyError, examples: { technicianToken: keyExamples([TECHNICIAN_TOKEN_MESSAGES.invalid]).e1 } });
      }
      if (op.auth === 'technician') {
        alternative(401, { description: 'x-dni-tecnico missing (D20)', schema: KeyError, examples: { dniMissing: keyExamples([TECHNICIAN_AUTH_MESSAGES.dniMissing]).e1 } });
        alternative(403, { description: 'x-dni-tecnico names none of the central’s technicians', schema: KeyError, examples: { technicianUnknown: keyExamples([TECHNICIAN_AUTH_MESSAGES.technicianUnknown]).e1 } });
      }
      break;
    case 'basicOrApiKey':
      alternative(400, sys('Basic credentials with a NUL or a lone surrogate (D19)', [AUTH_MESSAGES.basicUnstorable]));
      alternative(400, { description: 'A key with a NUL or a lone surrogate (D19)', schema: KeyError, examples: keyExamples([AUTH_MESSAGES.keyUnstorable]) });
      out[401] = {
        description: 'Credentials missing or wrong: Basic in the system envelope (spec 5.1), the key in its own (spec 5.2)',
        schema: { anyOf: [ref(SystemError), ref(KeyError)] },
        examples: { ...systemExamples(AUTH_MESSAGES_EXAMPLES.basic401), ...Object.fromEntries(Object.entries(keyExamples(AUTH_MESSAGES_EXAMPLES.key401)).map(([k, v]) => [`key${k}`, v])) },
      };
      out[403] = { description: 'API user inactive (spec 5.1, 5.2)', schema: { anyOf: [ref(SystemError), ref(KeyError)] }, examples: systemExamples([AUTH_MESSAGES.basicInactive]) };
      out[429] = { description: 'Too many failed authentications (D19)', schema: { anyOf: [ref(SystemError), ref(KeyError), ref(RateLimited)] } };
      out[500] = { description: 'Internal failure of the key check (spec 5.2), or unhandled error', schema: { anyOf: [ref(KeyError), ref(SystemError)] } };
      break;
    case 'basicOrJwt':
      alternative(400, sys('Basic credentials with a NUL or a lone surrogate (D19)', [AUTH_MESSAGES.basicUnstorable]));
      out[401] = {
        description: 'Credentials missing or wrong, in the controller envelope (spec 4.4)',
        schema: ControllerError,
        examples: { invalid: { status: false, msg: AUTH_MESSAGES.basicInvalid } },
      };
      out[403] = sys('API user inactive, or the endpoint is not enabled for it (spec 5.1)', AUTH_MESSAGES_EXAMPLES.basic403);
      out[429] = { description: 'Too many failed authentications (D19)', schema: { anyOf: [ref(SystemError), ref(ControllerError), ref(RateLimited)] } };
      break;
    case 'operator':
      out[401] = {
        description: 'Not signed in as an operator (JSON clients)',
        schema: ControllerError,
        examples: { login: { status: false, msg: OPERATOR_LOGIN_REQUIRED } },
      };
      out[302] = { description: 'Not signed in (browsers): to the login form', headers: { Location: { description: 'the login form', schema: str(2048) } } };
      break;
    case 'chat':
      alternative(400, sys('Basic credentials with a NUL or a lone surrogate (D19)', [AUTH_MESSAGES.basicUnstorable]));
      alternative(400, { description: 'A key or x-dni-tecnico with a NUL or a lone surrogate (D19)', schema: KeyError, examples: keyExamples([AUTH_MESSAGES.keyUnstorable]) });
      out[401] = {
        description: 'Credentials missing or wrong: Basic in the system envelope, the key in its own, a token in the controller envelope',
        schema: { anyOf: [ref(SystemError), ref(KeyError), ref(ControllerError)] },
        examples: { token: { status: false, msg: TRACKING_MESSAGES.tokenInvalid } },
      };
      out[403] = sys('API user inactive (spec 5.1)', [AUTH_MESSAGES_EXAMPLES.basic403[0]]);
      out[429] = { description: 'Too many failed authentications (D19)', schema: { anyOf: [ref(SystemError), ref(KeyError), ref(RateLimited)] } };
      out[500] = { description: 'Internal failure of the key check (spec 5.2), or unhandled error', schema: { anyOf: [ref(KeyError), ref(SystemError)] } };
      break;
    case 'none':
      break;
  }
  if (isIdempotent(op) && op.envelope !== 'html') {
    const envelope = op.envelope;
    alternative(400, {
      description: 'Idempotency-Key malformed, or already used with another request (D24)',
      schema: ENVELOPE_SCHEMA[envelope],
      examples: { idempotencyKeyInvalid: exampleIn(envelope, IDEMPOTENCY_MESSAGES.invalid), idempotencyKeyReused: exampleIn(envelope, IDEMPOTENCY_MESSAGES.otherBody) },
    });
    out[409] = {
      description: 'A request with the same Idempotency-Key is still being processed (retry after Retry-After), or it acted and its answer was lost (D24)',
      schema: ENVELOPE_SCHEMA[envelope],
      examples: { idempotencyInFlight: exampleIn(envelope, IDEMPOTENCY_MESSAGES.inFlight), idempotencyAnswerLost: exampleIn(envelope, IDEMPOTENCY_MESSAGES.answerLost) },
      headers: { 'Retry-After': { description: 'seconds to wait before retrying (in flight only)', schema: { type: 'integer', minimum: 1 } } },
    };
  }
  if (op.integrity) {
    alternative(401, {
      description: 'D13 integrity refused: headers missing, timestamp outside 300 s, nonce already seen, or wrong signature',
      schema: KeyError,
      examples: keyExamples([INTEGRITY_MESSAGES.missing, INTEGRITY_MESSAGES.badSignature]),
    });
  }
  return out;
}

/** The error schema of each envelope (spec 7). */
const ENVELOPE_SCHEMA: Record<Envelope, Named> = { controller: ControllerError, data: DataAnswer, key: KeyError, system: SystemError };

/** An error body in `envelope`, for an example. */
function exampleIn(envelope: Envelope, message: string): Record<string, unknown> {
  switch (envelope) {
    case 'controller':
      return { status: false, msg: message };
    case 'data':
      return { status: false, data: message };
    case 'key':
      return keyExamples([message]).e1;
    case 'system':
      return systemExamples([message]).e1;
  }
}

/** The reusable `Idempotency-Key` parameter (D24) every idempotent operation refers to. */
const IDEMPOTENCY_PARAMETER: JsonObject = {
  name: IDEMPOTENCY_HEADER,
  in: 'header',
  required: false,
  description:
    `D24: retries act once. 1–255 visible ASCII characters, chosen by the caller (a UUID per intended act). The same key with the same request ` +
    `within 24 hours answers the first answer again (status and body, with \`${REPLAYED_HEADER}: true\`) without acting twice; with another ` +
    `request, 400 "${IDEMPOTENCY_MESSAGES.otherBody}"; while the first is still being processed, 409 with Retry-After. Keys are per caller. ` +
    'A 5xx or 429 answer is not kept: the next try with the key acts.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
};

/** Paths that serve the documents themselves (mounted before body parsing). */
export const DOCUMENT_PATHS: ReadonlySet<string> = new Set([`${API}/openapi.json`, `${API}/asyncapi.json`, `${API}/docs`, `${API}/docs/{file}`]);

function schemaOf(s: Named | JSONSchema): JSONSchema {
  return isNamed(s) ? ref(s) : s;
}

/** One declared answer merged with the shared one of the same status (either body may come). */
export function mergedResponses(op: OperationDecl): Record<number, ResponseDecl> {
  const shared = sharedResponses(op);
  const own = op.responses;
  const out: Record<number, ResponseDecl> = { ...shared };
  for (const [code, r] of Object.entries(own)) {
    const status = Number(code);
    const s = shared[status];
    if (!s || !s.schema || !r.schema || r.contentType) {
      out[status] = r;
      continue;
    }
    const a = schemaOf(r.schema);
    const b = schemaOf(s.schema);
    out[status] = {
      description: `${r.description}; or: ${s.description}`,
      schema: JSON.stringify(a) === JSON.stringify(b) ? r.schema : { anyOf: [a, b] },
      examples: { ...(s.examples ?? {}), ...(r.examples ?? {}) },
      headers: r.headers ?? s.headers,
    };
  }
  return out;
}

function responseObject(r: ResponseDecl): JsonObject {
  const out: JsonObject = { description: r.description };
  if (r.headers) out.headers = asJson(r.headers);
  if (r.contentType) {
    out.content = { [r.contentType]: { schema: { type: 'string', maxLength: 10_000_000 } } };
  } else if (r.schema) {
    const media: JsonObject = { schema: asJson(schemaOf(r.schema)) };
    if (r.examples && Object.keys(r.examples).length) {
      media.examples = Object.fromEntries(Object.entries(r.examples).map(([k, v]) => [k, { value: asJson(v) }]));
    }
    out.content = { 'application/json': media };
  }
  return out;
}

function operationObject(op: OperationDecl): JsonObject {
  const out: JsonObject = {
    operationId: op.operationId,
    summary: op.summary,
    tags: [op.tag],
    security: asJson(securityOf(op)),
    'x-envelope': op.envelope,
  };
  if (op.description) out.description = op.description;
  const parameters: JsonObject[] = [];
  for (const [name, p] of Object.entries(op.pathParams ?? {})) {
    parameters.push({ name, in: 'path', required: true, description: p.description, schema: { type: 'string', maxLength: p.maxLength } });
  }
  if (op.input) {
    const { schema, from } = op.input;
    if (from === 'jsonOrQuery') {
      const props = (schema.schema as { properties?: Record<string, JSONSchema> }).properties ?? {};
      for (const [name, s] of Object.entries(props)) {
        const said = (s as { description?: string }).description ?? FIELD_DESCRIPTIONS[schema.name]?.[name];
        parameters.push({ name, in: 'query', required: false, description: `${said ? `${said} ` : ''}(in the query string when the JSON body does not carry it)`, schema: asJson(s) });
      }
    }
    const type = from === 'form' ? 'application/x-www-form-urlencoded' : 'application/json';
    const media: JsonObject = { schema: asJson(ref(schema)) };
    // what Swagger UI's "Try it out" fills in (issue 31): a realistic body, never one made up from the patterns
    if (REQUEST_EXAMPLES[schema.name]) media.example = asJson(REQUEST_EXAMPLES[schema.name]);
    out.requestBody = { required: from !== 'jsonOrQuery', content: { [type]: media } };
  }
  if (isIdempotent(op)) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
  if (parameters.length) out.parameters = parameters;
  out.responses = Object.fromEntries(
    Object.entries(mergedResponses(op))
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([code, r]) => [code, responseObject(r)]),
  );
  if (op.failure) out['x-failure-message'] = op.failure;
  return out;
}

/** Every named schema reachable from the declarations, by name; a name used for two schemas is a bug. */
function collectSchemas(ops: readonly OperationDecl[]): Record<string, JsonObject> {
  const out = new Map<string, JSONSchema>();
  const add = (n: Named) => {
    const seen = out.get(n.name);
    if (seen && seen !== n.schema) throw new Error(`two schemas named ${n.name}`);
    out.set(n.name, n.schema);
  };
  for (const n of [...RESPONSE_SCHEMAS, ...WEBHOOK_SCHEMAS, ...SOCKET_SCHEMAS, ...CUSTOMER_SCHEMAS, ...DELIVERY_SCHEMAS, ...PROVIDER_SCHEMAS]) add(n);
  const requests = new Set<string>();
  for (const op of ops) {
    if (op.input) {
      add(op.input.schema);
      requests.add(op.input.schema.name);
    }
    for (const r of Object.values(op.responses)) if (r.schema && isNamed(r.schema)) add(r.schema);
  }
  // request bodies: every field described (requestDocs.ts fills what the declaration leaves out)
  return Object.fromEntries(
    [...out].map(([k, v]) => [k, asJson(requests.has(k) ? describedSchema(v as Record<string, unknown>, FIELD_DESCRIPTIONS[k] ?? {}) : v) as JsonObject]),
  );
}

export function buildDocument(ops: readonly OperationDecl[] = OPERATIONS): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const op of ops) {
    paths[op.path] ??= {};
    if (paths[op.path][op.method]) throw new Error(`${op.method.toUpperCase()} ${op.path} declared twice`);
    paths[op.path][op.method] = operationObject(op);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Service Offer Brokering API',
      version: '3.0.0',
      description:
        'Offers of service, a 30-second response window, best-response selection, webhooks and service tracking. ' +
        'Every string a client sends has a maximum length (D19). Errors use the envelopes of spec section 7; ' +
        '`x-envelope` names the one each operation uses. The WebSocket events are described at /api/v3/asyncapi.json.\n' +
        GETTING_STARTED,
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'Ofertas', description: 'Offers and responses (spec 4.1–4.3)' },
      { name: 'Servicio', description: 'The service after acceptance (spec 4.4, 4.8)' },
      { name: 'Proveedores', description: 'The provider’s side: centrals and their technicians, each with a credential of its own (D20)' },
      { name: 'Consultas', description: 'Queries (spec 4.5–4.7)' },
      { name: 'Operadores', description: 'Operators (D15)' },
      { name: 'Seguimiento', description: 'The customer follows its service with an SMS code (D14); every request signed (D13)' },
      { name: 'Chat', description: 'Customer and technician per service (D14); every request signed (D13)' },
      { name: 'Sistema', description: 'Health and this document' },
    ],
    paths,
    webhooks: WEBHOOKS,
    components: {
      schemas: collectSchemas(ops),
      securitySchemes: asJson(SECURITY_SCHEMES) as Record<string, JsonObject>,
      parameters: { IdempotencyKey: IDEMPOTENCY_PARAMETER },
    },
  };
}

let cached: OpenApiDocument | undefined;

/** The document, built once per process. */
export function openApiDocument(): OpenApiDocument {
  cached ??= buildDocument();
  return cached;
}
