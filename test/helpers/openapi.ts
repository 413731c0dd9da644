/**
 * Every response the test client receives is checked against the OpenAPI
 * document (D19): an operation's undocumented status, or a JSON body off the
 * documented schema, throws (the request then fails in the test that made
 * it). Unknown routes must answer the route-not-found body (4.9).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openApiDocument, type OpenApiDocument } from '../../src/api/document/openapi.js';

const DOC_ID = 'https://broker.test/openapi.json';

interface Compiled {
  doc: OpenApiDocument;
  ajv: Ajv2020;
  matchers: Array<{ path: string; re: RegExp }>;
  validators: Map<string, ValidateFunction>;
}

let compiled: Compiled | undefined;

function setup(): Compiled {
  if (compiled) return compiled;
  const doc = openApiDocument();
  const ajv = new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true });
  (addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ ...structuredClone(doc), $id: DOC_ID });
  const matchers = Object.keys(doc.paths).map((path) => ({
    path,
    re: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '[^/]+')}$`),
  }));
  compiled = { doc, ajv, matchers, validators: new Map() };
  return compiled;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

function validatorFor(c: Compiled, ptr: string): ValidateFunction {
  let v = c.validators.get(ptr);
  if (!v) {
    v = c.ajv.compile({ $ref: `${DOC_ID}#/${ptr}` });
    c.validators.set(ptr, v);
  }
  return v;
}

function bodyOf(raw: unknown): unknown {
  if (typeof raw === 'string') return raw === '' ? undefined : JSON.parse(raw);
  if (Buffer.isBuffer(raw)) return raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
  return raw;
}

export interface SeenResponse {
  method: string;
  url: string;
  status: number;
  contentType: string;
  body: unknown;
}

/** Throws when the response is not one the document describes. */
export function checkResponse(r: SeenResponse): void {
  const c = setup();
  const { pathname } = new URL(r.url);
  const method = r.method.toLowerCase() === 'head' ? 'get' : r.method.toLowerCase();
  const where = `${r.method} ${pathname} → ${r.status}`;
  const match = c.matchers.find((m) => m.re.test(pathname) && c.doc.paths[m.path][method]);
  const isJson = /\bjson\b/i.test(r.contentType);
  // Bull Board's own API under its page (operationId adminQueues) is the package's, not described here.
  if (pathname.startsWith('/admin/queues/')) return;
  if (!match) {
    if (r.status === 308 && /^\/api\/v[12](\/|$)/.test(pathname)) return; // version redirect (spec 9.2)
    if (r.status === 404 && isJson) {
      const v = validatorFor(c, pointer('components', 'schemas', 'RouteNotFound'));
      if (!v(bodyOf(r.body))) throw new Error(`${where}: not the route-not-found body: ${c.ajv.errorsText(v.errors)}`);
      return;
    }
    if (r.status === 408 || r.status === 413 || r.status === 503) return; // the edge answered before routing
    throw new Error(`${where}: no operation in the OpenAPI document`);
  }
  const responses = c.doc.paths[match.path][method].responses as Record<string, { content?: Record<string, unknown> }>;
  const documented = responses[String(r.status)] ?? responses[`${String(r.status)[0]}XX`];
  if (!documented) throw new Error(`${where}: status not documented for ${match.path} (documented: ${Object.keys(responses).join(', ')})`);
  if (!isJson || !documented.content?.['application/json']) return;
  const v = validatorFor(c, pointer('paths', match.path, method, 'responses', String(r.status), 'content', 'application/json', 'schema'));
  const body = bodyOf(r.body);
  if (!v(body)) {
    throw new Error(`${where}: body off the document's schema: ${c.ajv.errorsText(v.errors)}; body: ${JSON.stringify(body)?.slice(0, 500)}`);
  }
}
