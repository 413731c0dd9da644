/**
 * One operation of the API, transport-neutral (D19, issue 27): its
 * declaration (method, path, who may call it, the envelope of its errors,
 * its input schema and its responses), the 400 wording of a failed
 * validation, its wording for domain codes, and its handler
 * `(rt, caller, input) => answer`. The OpenAPI document, the HTTP mounter
 * (src/http/mount.ts) and the socket's `invoke` (invoke.ts) are all built
 * from these declarations, so none can list an operation another lacks.
 */
import type { ErrorObject } from 'ajv';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { ApiUser, Offer, OperatorUser } from '../db/entities/index.js';
import type { ChatViewer } from '../domain/chat/chat.js';
import type { DomainErrorCode } from '../domain/errors.js';
import type { Runtime } from '../domain/ports.js';
import type { Envelope as ErrorEnvelope } from '../envelopes.js';

/** The version prefix of every API path (spec 9.2), written once. */
export const API = '/api/v3';

export type Method = 'get' | 'post' | 'put';

/**
 * Who may call an operation, each mapped to its middleware (src/http/mount.ts)
 * and to the document's security requirements (document/openapi.ts):
 * - basic: HTTP Basic (spec 5.1), permission for the path checked;
 * - apiKey: x-apikey (spec 5.2);
 * - basicOrApiKey: x-apikey when the request carries one, else HTTP Basic: any
 *   API user, a generator or a central, as itself (POST /webhooks/test, D23);
 * - basicOrJwt: an operator's Bearer JWT or HTTP Basic (spec 4.4, 5.3);
 * - operator: an operator's Bearer JWT or session cookie (D15);
 * - chat: the customer's tracking token, the assigned technician's token or
 *   its central's key and document, the generator's Basic or an operator's JWT (D14, D20);
 * - apiKeyOrTechnician: the technician's own bearer token (D20), or x-apikey
 *   as `apiKey` (the central reporting for its technicians);
 * - technician: the technician's own bearer token, or its central's x-apikey
 *   plus x-dni-tecnico (D20);
 * - none: public.
 */
export type Auth = 'basic' | 'apiKey' | 'basicOrApiKey' | 'basicOrJwt' | 'operator' | 'chat' | 'apiKeyOrTechnician' | 'technician' | 'none';

/**
 * The body its errors take (spec 7): controller `{status: false, msg}`,
 * data `{status: false, data}` (PUT /aceptacion 4.3 and the D8/D11 endpoints
 * that share it), key `{status: false, msg, timestamp}` (5.2), system (7.2);
 * html for the operator pages.
 */
export type Envelope = ErrorEnvelope | 'html';

/** A named schema; the name is its key under the document's components.schemas. */
export interface Named<S extends JSONSchema = JSONSchema> {
  name: string;
  schema: S;
}

export interface ResponseDecl {
  description: string;
  /** JSON body schema (named: a component; inline otherwise) */
  schema?: Named | JSONSchema;
  /** examples of the body, by name (the wording's texts, never retyped) */
  examples?: Record<string, unknown>;
  /** content type when not JSON */
  contentType?: 'text/html' | 'application/javascript' | 'text/css' | 'image/png' | 'text/plain';
  headers?: Record<string, { description: string; schema: JSONSchema }>;
}

/** Who is calling, as the transport authenticated it: HTTP's middleware or the socket's upgrade. */
export interface Caller {
  /** the API user (Basic or x-apikey); over the socket, the technician's central */
  apiUser?: ApiUser;
  /** an operator (JWT or cookie, D15), with when its session ends (epoch seconds; an open socket's re-check, D24) */
  operator?: Pick<OperatorUser, 'id' | 'username' | 'role'> & { sessionEnds?: number };
  /** a technician as itself: over the socket (D10), with its own token or its central's key and x-dni-tecnico (D20) */
  technician?: { id: number; dni: string };
  /** the chat's service and viewer (D14) */
  chat?: { offer: Offer; viewer: ChatViewer };
  /** the client's address (per-IP limits, D14) */
  ip?: string;
}

/** An answer with a status other than 200 (or headers); any other return value is the 200 body. */
export class Answer {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** The 400 of a failed validation: the wording of the first failure and any extra body fields. */
export interface InvalidInput {
  /** the spec's message for the first failure */
  message: (e: ErrorObject) => string;
  /** extra fields of the 400 body (GET /offer-responses: `data: []`) */
  extra?: Record<string, unknown>;
}

/** An operation's own status and text for a domain code, instead of the error table's (errorTable.ts). */
export interface Wording {
  status: number;
  message: string;
  extra?: Record<string, unknown>;
}

/** The validated input's type: what the input schema describes (the path parameters when there is none). */
export type InputOf<I> = I extends { schema: { schema: infer S } } ? (S extends JSONSchema ? FromSchema<S> : never) : Record<string, string>;

/** A declaration's fields other than its input and handler. */
interface OperationBase {
  method: Method;
  /** full path, OpenAPI template form (`/api/v3/admin/offers/{uuid}/recipients`) */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  auth: Auth;
  /** false: any active API user may call it, whatever its profile's endpoint list (its own delivery log, D18) */
  endpointGated?: boolean;
  /** D13: the request must carry a valid x-timestamp, x-nonce and x-signature, checked before anything else of the route */
  integrity?: boolean;
  envelope: Envelope;
  /** path parameters (strings) and their maximum lengths; the handler receives them as its input, laid over the body when there is one */
  pathParams?: Record<string, { description: string; maxLength: number }>;
  /** the endpoint's own 500 message (spec 7.3 "handled failure inside an endpoint") */
  failure?: string;
  /** the 400 wording of a failed validation (else 'SOLICITUD INVÁLIDA') */
  invalid?: InvalidInput;
  /** this operation's status and text for some domain codes (one concept, the operation's wording; spec 4.2–4.4, D11) */
  wording?: Partial<Record<DomainErrorCode, Wording>>;
  responses: Record<number, ResponseDecl>;
}

/**
 * The request input validated before the handler runs: the JSON body, a
 * form body, or (GET /offer-responses) the JSON body's fields falling back
 * to the query string's.
 */
export interface InputDecl<B extends JSONSchema = JSONSchema> {
  schema: Named<B>;
  from: 'json' | 'form' | 'jsonOrQuery';
}

export interface OperationDecl extends OperationBase {
  input?: InputDecl;
  /**
   * The transport-neutral handler: the validated input in, the 200 body (or
   * an Answer) out, domain errors raised. Absent for the few routes that need
   * request facts (cookies, HTML pages, forms): src/http binds those itself.
   * Its input is typed where it is declared (`operation`).
   */
  handle?(rt: Runtime, caller: Caller, input: never): unknown;
}

/** Types a declaration's handler by its input schema (json-schema-to-ts). */
export function operation<const I extends InputDecl | undefined = undefined>(
  decl: OperationBase & { input?: I; handle?: (rt: Runtime, caller: Caller, input: InputOf<I>) => unknown },
): OperationDecl {
  return decl as unknown as OperationDecl;
}

export function named<const S extends JSONSchema>(name: string, schema: S): Named<S> {
  return { name, schema };
}

/** The permission name of a path: the path without the version prefix (spec 5.1). */
export const endpointOf = (path: string): string => (path.startsWith(`${API}/`) ? path.slice(API.length) : path);

/** The API user the authentication put on the caller (Basic or x-apikey operations). */
export function apiUserOf(caller: Caller): ApiUser {
  if (!caller.apiUser) throw new Error('operation reached without an authenticated API user');
  return caller.apiUser;
}
