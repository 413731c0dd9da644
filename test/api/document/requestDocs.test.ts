/**
 * Issue 31 item 5 (API docs): every field of every request body in the
 * OpenAPI document has a description, every request body has a realistic
 * example (what Swagger UI's "Try it out" fills in, instead of values made up
 * from the patterns: `tipoServicio` regex junk, 0,0 coordinates) that the
 * operation's own validation accepts, and the getting-started section
 * (credentials → offer → answer → webhook) names only paths the document has.
 */
import { expect } from 'chai';
import { buildDocument, type Json, type JsonObject } from '../../../src/api/document/openapi.js';
import { OPERATIONS } from '../../../src/api/operations.js';
import { validatorOf } from '../../../src/api/validation.js';

const doc = buildDocument();
const schemas = doc.components.schemas;

/** Every property path of a schema without a description (through $ref, nested objects, items and anyOf/oneOf/allOf). */
function undescribed(s: Json, path: string, seen = new Set<string>()): string[] {
  if (!s || typeof s !== 'object' || Array.isArray(s)) return [];
  const o = s as JsonObject;
  if (typeof o.$ref === 'string') {
    const name = o.$ref.split('/').pop()!;
    if (seen.has(name)) return [];
    return undescribed(schemas[name], path, new Set([...seen, name]));
  }
  const out: string[] = [];
  for (const k of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(o[k])) for (const b of o[k] as Json[]) out.push(...undescribed(b, path, seen));
  if (o.properties && typeof o.properties === 'object') {
    for (const [k, v] of Object.entries(o.properties as JsonObject)) {
      const p = path ? `${path}.${k}` : k;
      if (!(v as JsonObject)?.description) out.push(p);
      out.push(...undescribed(v, p, seen));
    }
  }
  if (o.items) out.push(...undescribed(o.items, `${path}[]`, seen));
  return out;
}

const withBodies = OPERATIONS.filter((op) => op.input);
const mediaOf = (op: (typeof OPERATIONS)[number]) => {
  const body = doc.paths[op.path][op.method].requestBody as { content: Record<string, { schema: Json; example?: Record<string, unknown> }> };
  return Object.values(body.content)[0];
};

describe('the API docs: request bodies described, with realistic examples, and a getting-started section (issue 31)', () => {
  it('every field of every request body has a description', () => {
    const missing = withBodies.flatMap((op) => undescribed(mediaOf(op).schema, '').map((p) => `${op.operationId} (${op.input!.schema.name}): ${p}`));
    expect(missing).to.deep.equal([]);
    expect(withBodies.length).to.be.greaterThan(25);
  });

  it('every request body has an example, which the operation’s own validation accepts', () => {
    const problems: string[] = [];
    for (const op of withBodies) {
      const { example } = mediaOf(op);
      if (!example) {
        problems.push(`${op.operationId}: no example`);
        continue;
      }
      const validate = validatorOf(op);
      if (!validate(example)) problems.push(`${op.operationId}: ${JSON.stringify(validate.errors)}`);
    }
    expect(problems).to.deep.equal([]);
  });

  it('the examples are realistic: a service type id, coordinates in Colombia, a uuid, a phone', () => {
    for (const id of ['createOffer', 'assignDirectly']) {
      const op = OPERATIONS.find((o) => o.operationId === id)!;
      const ex = mediaOf(op).example!;
      expect(String(ex.tipoServicio)).to.match(/^[0-9]+$/);
      expect(ex.latitudOrigen).to.be.within(-4.3, 13.5);
      expect(ex.longitudOrigen).to.be.within(-79.1, -66.8);
      expect(ex.uuid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(ex.telefonoCliente).to.be.a('string');
    }
  });

  it('the description has the getting-started steps, and every API path it names is in the document', () => {
    const text = String(doc.info.description);
    for (const step of ['Credentials', 'Check your receiver', 'Offer', 'Answer', 'Webhook', 'The customer']) expect(text).to.include(`**${step}`);
    const named = [...text.matchAll(/\/api\/v3\/[a-z0-9/_.-]+/gi)].map((m) => m[0].replace(/[.]$/, ''));
    expect(named.length).to.be.greaterThan(5);
    const known = new Set(Object.keys(doc.paths));
    expect(named.filter((p) => !known.has(p))).to.deep.equal([]);
  });
});
