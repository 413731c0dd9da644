/**
 * The declaration of one route (D19): method, path, operationId, who may call
 * it, the envelope its errors use, its body or query schema and its responses.
 * The OpenAPI document (document.ts) and the router (router.ts) are both built
 * from these declarations, so neither can list a route the other lacks.
 */
import type { JSONSchema } from 'json-schema-to-ts';

export type Method = 'get' | 'post' | 'put';

/**
 * Who may call a route, each mapped to its middleware (router.ts) and to the
 * document's security requirements (document.ts):
 * - basic: HTTP Basic (spec 5.1), permission for the path checked;
 * - apiKey: x-apikey (spec 5.2);
 * - basicOrJwt: an operator's Bearer JWT or HTTP Basic (spec 4.4, 5.3);
 * - operator: an operator's Bearer JWT or session cookie (D15);
 * - chat: the customer's tracking token, the assigned technician's key and
 *   document, the generator's Basic or an operator's JWT (D14);
 * - none: public.
 */
export type Auth = 'basic' | 'apiKey' | 'basicOrJwt' | 'operator' | 'chat' | 'none';

/**
 * The body its errors take (spec 7): controller `{status: false, msg}`,
 * acceptance `{status: false, data}` (4.3), key `{status: false, msg,
 * timestamp}` (5.2), system (7.2); html for the operator pages.
 */
export type Envelope = 'controller' | 'acceptance' | 'key' | 'system' | 'html';

/** A named schema; the name is its key under the document's components.schemas. */
export interface Named<S extends JSONSchema = JSONSchema> {
  name: string;
  schema: S;
}

export interface ResponseDecl {
  description: string;
  /** JSON body schema (named: a component; inline otherwise) */
  schema?: Named | JSONSchema;
  /** examples of the body, by name (the spec's texts) */
  examples?: Record<string, unknown>;
  /** content type when not JSON */
  contentType?: 'text/html' | 'application/javascript' | 'text/css' | 'image/png' | 'text/plain';
  headers?: Record<string, { description: string; schema: JSONSchema }>;
}

export interface OperationDecl<B extends JSONSchema = JSONSchema> {
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
  /**
   * The request input validated before the handler runs: the JSON body, a
   * form body, or (GET /offer-responses) the JSON body's fields falling back
   * to the query string's.
   */
  input?: { schema: Named<B>; from: 'json' | 'form' | 'jsonOrQuery' };
  /** path parameters (strings) and their maximum lengths */
  pathParams?: Record<string, { description: string; maxLength: number }>;
  /** the endpoint's own 500 message (spec 7.3 "handled failure inside an endpoint") */
  failure?: string;
  responses: Record<number, ResponseDecl>;
}

/** Keeps the literal type of a declaration's input schema for the handler's typing. */
export function operation<const B extends JSONSchema>(decl: OperationDecl<B>): OperationDecl<B> {
  return decl;
}

export function named<const S extends JSONSchema>(name: string, schema: S): Named<S> {
  return { name, schema };
}
