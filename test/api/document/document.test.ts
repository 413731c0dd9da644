/**
 * The OpenAPI document (D19) is the one description of the API: it validates,
 * bounds every string, lists exactly the routes the app serves, keeps its
 * patterns linear (issue 8 item 2), and its AsyncAPI part lists the socket
 * events docs/realtime.md lists.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { expect } from 'chai';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { check } from 'recheck';
import type Router from '@koa/router';
import { randomUUID } from 'node:crypto';
import { createApp } from '../../../src/http/app.js';
import { INCOMING_DOC, OUTGOING, asyncApiDocument } from '../../../src/api/document/asyncapi.js';
import { buildDocument, openApiDocument } from '../../../src/api/document/openapi.js';
import { acceptOffer } from '../../../src/api/offers/acceptOffer.js';
import { MOUNTED_OUTSIDE_ROUTER, OPERATIONS } from '../../../src/api/operations.js';
import { validatorOf } from '../../../src/api/validation.js';
import { koaPath } from '../../../src/http/mount.js';
import { isProtocolError, parseIncoming } from '../../../src/realtime/protocol.js';
import { startApp, type TestApp } from '../../helpers/harness.js';

type Node = Record<string, unknown>;

/** Every object node of a JSON value, with its JSON pointer. */
function* nodes(value: unknown, at = ''): Generator<[string, Node]> {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) yield* nodes(v, `${at}/${i}`);
  } else if (value !== null && typeof value === 'object') {
    yield [at, value as Node];
    for (const [k, v] of Object.entries(value)) yield* nodes(v, `${at}/${k}`);
  }
}

const isStringSchema = (n: Node) => n.type === 'string' || (Array.isArray(n.type) && n.type.includes('string'));

/**
 * Regexes that only ever read the operator's configuration (a base URL's
 * trailing slashes), never a client's input: bounded by who writes them.
 */
const CONFIGURATION_ONLY = [
  { file: 'src/webhooks/dispatch.ts', source: '\\/+$' },
  { file: 'src/geocoding/nominatim.ts', source: '\\/+$' },
];

/** Regular-expression literals in the service's sources (a lexical scan, enough for this code base). */
async function sourceRegexes(dir: string): Promise<Array<{ where: string; source: string; flags: string }>> {
  const out: Array<{ where: string; source: string; flags: string }> = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = path.join(entry.parentPath, entry.name);
    const lines = (await readFile(file, 'utf8')).split('\n');
    for (const [i, line] of lines.entries()) {
      if (/^\s*(\*|\/\/|\/\*)/.test(line)) continue;
      const literal = /(?:^|[(=,:!&|?;{}]|\breturn|\bcase)\s*\/((?:\\.|\[(?:\\.|[^\]\\])*\]|[^/\\\n[])+)\/([dgimsuy]*)/g;
      for (const m of line.matchAll(literal)) {
        if (m[1].includes('`') || m[1].includes('${')) continue; // a path in a template string, not a regex
        if (CONFIGURATION_ONLY.some((c) => file.endsWith(c.file) && m[1] === c.source)) continue;
        out.push({ where: `${path.relative(process.cwd(), file)}:${i + 1}`, source: m[1], flags: m[2] });
      }
    }
  }
  return out;
}

describe('The OpenAPI document (D19)', () => {
  const doc = openApiDocument();

  it('validates as OpenAPI 3.1 with @apidevtools/swagger-parser', async () => {
    const api = await SwaggerParser.validate(structuredClone(doc) as unknown as Parameters<typeof SwaggerParser.validate>[0]);
    expect(api).to.have.property('openapi', '3.1.0');
  });

  it('is built from the declarations: one operation per declared route, each with its operationId, security and responses', () => {
    const ops = Object.values(doc.paths).flatMap((item) => Object.values(item));
    expect(ops.map((o) => o.operationId).sort()).to.deep.equal(OPERATIONS.map((o) => o.operationId).sort());
    for (const o of ops) expect(o.responses, String(o.operationId)).to.be.an('object').that.is.not.empty;
    expect(doc.components.securitySchemes).to.include.keys('basicAuth', 'apiKey', 'bearerJwt', 'integrityTimestamp', 'integrityNonce', 'integritySignature');
    expect(doc.components.securitySchemes.apiKey).to.deep.include({ type: 'apiKey', in: 'header', name: 'x-apikey' });
    expect(Object.keys(doc.webhooks)).to.have.members(['acceptanceNotification', 'stateNotification', 'offerPush']);
    expect(JSON.stringify(buildDocument())).to.equal(JSON.stringify(doc));
  });

  it('gives every string a maximum length (requests, responses, webhooks, socket events)', () => {
    const unbounded = [...nodes(doc), ...nodes(asyncApiDocument())]
      .filter(([, n]) => isStringSchema(n) && typeof n.maxLength !== 'number')
      .map(([at]) => at);
    expect(unbounded).to.deep.equal([]);
  });

  it('lists the spec 7 envelopes with the spec’s texts as examples', () => {
    const text = JSON.stringify(doc);
    for (const message of [
      'La petición ha excedido el tiempo de espera',
      'Error interno del servidor',
      'No se han brindado las credenciales de acceso.',
      "El estado del usuario de API es 'INACTIVO'.",
      'No se ha brindado la clave de acceso.',
      "NO SE RECIBIÓ EL CAMPO 'uuid', REQUERIDO PARA EJECUTAR LA OFERTA DEL SERVICIO",
      'NO SE HA PROPORCIONADO EL UUID DE LA OFERTA',
      'Oferta ya aceptada',
      'UUID es requerido',
    ]) {
      expect(text, message).to.include(JSON.stringify(message).slice(1, -1));
    }
  });

  it('has no pattern that backtracks super-linearly (recheck), in the document, the socket protocol and src', async function () {
    this.timeout(180_000);
    const patterns = new Map<string, string>();
    for (const [at, n] of [...nodes(doc), ...nodes(asyncApiDocument())]) if (typeof n.pattern === 'string') patterns.set(n.pattern, at);
    expect(patterns.size, 'patterns in the document').to.be.greaterThan(5);
    const found = await sourceRegexes(path.resolve('src'));
    expect(found.length, 'regex literals in src').to.be.greaterThan(10);
    const all = [...[...patterns].map(([source, where]) => ({ where, source, flags: 'u' })), ...found];
    const unsafe: string[] = [];
    for (const r of all) {
      const d = await check(r.source, r.flags.replace(/[gy]/g, ''), { timeout: 20_000 });
      if (d.status !== 'safe') unsafe.push(`${r.where} /${r.source}/ ${d.status}${d.status === 'vulnerable' ? ` (${d.complexity.type})` : ''}`);
    }
    expect(unsafe).to.deep.equal([]);
  });

  it('validates a payload the same way over HTTP and over the socket (tiempoLlegadaSitio 0–1440)', () => {
    const id = randomUUID();
    const http = validatorOf(acceptOffer);
    const socket = (minutes: number) => parseIncoming(Buffer.from(JSON.stringify({ event: 'offer.respond', data: { id, tiempoLlegadaSitio: minutes } })), false, 'technician');
    for (const [minutes, ok] of [[0, true], [1440, true], [1441, false], [100_000, false], [-1, false]] as const) {
      expect(http({ id, dniPrestador: '1', dniTecnico: '2', tiempoLlegadaSitio: minutes }), `HTTP ${minutes}`).to.equal(ok);
      expect(isProtocolError(socket(minutes)), `socket ${minutes}`).to.equal(!ok);
    }
  });
});

describe('The AsyncAPI document and docs/realtime.md', () => {
  it('list the same socket events, and the protocol accepts exactly the documented incoming ones', async () => {
    const md = await readFile(path.resolve('docs/realtime.md'), 'utf8');
    const section = (title: string) => {
      const start = md.indexOf(title);
      const rest = md.slice(start + title.length);
      return rest.slice(0, rest.search(/\n#{2,3} /));
    };
    const events = (text: string) =>
      [...text.matchAll(/^\| `([a-z<][\w.<>]*)` \|/gm)].flatMap(([, e]) => (e === '<event>.result' ? ['offer.respond.result', 'position.result', 'progress.result'] : [e]));
    expect(events(section('### Server → client'))).to.have.members(Object.keys(OUTGOING));
    expect(events(section('### Client → server'))).to.have.members(Object.keys(INCOMING_DOC));
    const unknown = parseIncoming(Buffer.from(JSON.stringify({ event: 'nope' })), false, 'technician');
    expect(isProtocolError(unknown) && (unknown.details as { known: string[] }).known).to.have.members(Object.keys(INCOMING_DOC));
    const names = Object.values(asyncApiDocument().components as Record<string, Record<string, { name: string }>>).flatMap((c) => Object.values(c));
    expect(names.length).to.be.greaterThan(0);
  });
});

describe('Routes and the document', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });
  after(async () => app.close());

  it('every router route is in the document and every document operation is routed', () => {
    const routed = new Set<string>();
    for (const mw of createApp(app.rt).middleware) {
      const router = (mw as { router?: Router }).router;
      for (const layer of router?.stack ?? []) {
        for (const m of layer.methods) if (m !== 'HEAD') routed.add(`${m} ${layer.path}`);
      }
    }
    const documented = new Set(
      OPERATIONS.filter((o) => !MOUNTED_OUTSIDE_ROUTER.has(o.operationId)).map((o) => `${o.method.toUpperCase()} ${koaPath(o.path)}`),
    );
    expect([...routed].sort()).to.deep.equal([...documented].sort());
  });

  it('serves the documents at /api/v3/openapi.json and /api/v3/asyncapi.json', async () => {
    const open = await app.client.get('api/v3/openapi.json');
    expect(open.statusCode).to.equal(200);
    expect(open.body).to.deep.equal(JSON.parse(JSON.stringify(openApiDocument())));
    const as = await app.client.get('api/v3/asyncapi.json');
    expect(as.statusCode).to.equal(200);
    expect(as.body).to.have.property('asyncapi', '3.0.0');
  });

  it('the unknown-route body’s documentation link answers the docs page, whose files are served locally', async () => {
    const missing = await app.client.get('api/v3/nope');
    expect(missing.statusCode).to.equal(404);
    const link = (missing.body as unknown as { documentation: string }).documentation;
    const page = await app.client.get(link.slice(1), { responseType: 'text' });
    expect(page.statusCode).to.equal(200);
    expect(page.headers['content-type']).to.match(/^text\/html/);
    const files = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map(([, f]) => f);
    expect(files).to.include.members(['docs/swagger-ui.css', 'docs/swagger-ui-bundle.js', 'docs/init.js']);
    for (const f of files) {
      expect(f, 'nothing from outside').not.to.match(/^(https?:)?\/\//);
      const res = await app.client.get(`api/v3/${f}`, { responseType: 'buffer' });
      expect(res.statusCode, f).to.equal(200);
    }
    const outside = await app.client.get('api/v3/docs/package.json');
    expect(outside.statusCode, 'only the page’s files').to.equal(404);
  });
});
