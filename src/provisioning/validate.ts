/**
 * Checking a provisioning document: first against config/provision.schema.json
 * (ajv, JSON Schema 2020-12), then what the schema cannot say (duplicates,
 * references to rows in the document or the database, coverage geometry).
 * Every problem is one line `<json path>: <message>`.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiUser, BusinessLine, Central, ServiceType } from '../db/entities/index.js';
import { addressKey } from '../geocoding/index.js';
import { apiKeyHash } from '../auth/passwords.js';
import { refusedUrl, type TargetPolicy } from '../webhooks/targets.js';
import { SCHEMA_PATH, SECTIONS, type ProvisionDocument, type Section } from './document.js';

export type SchemaCheck = { ok: true; doc: ProvisionDocument } | { ok: false; problems: string[] };

let validator: ValidateFunction<ProvisionDocument> | undefined;

function schemaValidator(): ValidateFunction<ProvisionDocument> {
  if (!validator) {
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, strictTypes: false });
    (addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
    validator = ajv.compile<ProvisionDocument>(JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as object);
  }
  return validator;
}

function describe(e: ErrorObject): string {
  const path = e.instancePath || '/';
  const extra = e.keyword === 'additionalProperties' ? ` ('${String(e.params.additionalProperty)}')` : '';
  return `${path}: ${e.message ?? e.keyword}${extra}`;
}

/** The document typed, or every schema problem with its path. */
export function checkSchema(input: unknown): SchemaCheck {
  const validate = schemaValidator();
  if (validate(input)) return { ok: true, doc: input };
  return { ok: false, problems: [...new Set((validate.errors ?? []).map(describe))] };
}

/** `/section/i/field: duplicate of /section/j/field` for repeated keys within a section. */
function duplicates<T>(section: string, field: string, items: T[] | undefined, key: (item: T) => string | number | undefined): string[] {
  const first = new Map<string | number, number>();
  const problems: string[] = [];
  (items ?? []).forEach((item, i) => {
    const k = key(item);
    if (k === undefined) return;
    const j = first.get(k);
    if (j === undefined) first.set(k, i);
    else problems.push(`/${section}/${i}/${field}: duplicate of /${section}/${j}/${field}`);
  });
  return problems;
}

/** The values of `wanted` that are neither in the document nor found in the database. */
async function unknownValues<K extends string | number>(
  wanted: K[],
  inDoc: Iterable<K>,
  inDb: (missing: K[]) => Promise<K[]>,
): Promise<Set<K>> {
  const known = new Set<K>(inDoc);
  const missing = [...new Set(wanted.filter((v) => !known.has(v)))];
  if (missing.length) for (const found of await inDb(missing)) known.add(found);
  return new Set(missing.filter((v) => !known.has(v)));
}

interface GeometryCheck {
  reason: string;
  empty: boolean;
  in_range: boolean;
}

/** A GeoJSON coverage PostGIS can read, non-empty, valid and within longitude/latitude ranges. */
async function coverageProblem(em: EntityManager, coverage: { type: string; coordinates: unknown[] }): Promise<string | null> {
  try {
    const [row] = await em.getConnection().execute<GeometryCheck[]>(
      `select st_isvalidreason(g) as reason, st_isempty(g) as empty,
              (st_isempty(g) or (st_xmin(g) >= -180 and st_xmax(g) <= 180 and st_ymin(g) >= -90 and st_ymax(g) <= 90)) as in_range
         from (select st_setsrid(st_geomfromgeojson(?), 4326) as g) s`,
      [JSON.stringify({ type: coverage.type, coordinates: coverage.coordinates })],
    );
    if (row.empty) return 'is an empty geometry';
    if (!row.in_range) return 'has coordinates outside longitude [-180, 180] / latitude [-90, 90] (GeoJSON is lon, lat)';
    if (row.reason !== 'Valid Geometry') return `is not a valid ${coverage.type}: ${row.reason}`;
    return null;
  } catch (err) {
    // The driver's message is `<sql> - <PostGIS message>`.
    const message = (err as Error).message;
    return `is not a readable GeoJSON ${coverage.type}: ${message.slice(message.lastIndexOf(' - ') + 3)}`;
  }
}

/** Problems the schema cannot express; the database is only read. `targets`: where tenants' URLs may point. */
export async function checkReferences(em: EntityManager, doc: ProvisionDocument, targets?: TargetPolicy): Promise<string[]> {
  const problems = [
    ...duplicates('businessLines', 'code', doc.businessLines, (l) => l.code),
    ...duplicates('serviceTypes', 'id', doc.serviceTypes, (t) => t.id),
    ...duplicates('apiUsers', 'username', doc.apiUsers, (u) => u.username),
    ...duplicates('apiUsers', 'apiKey', doc.apiUsers, (u) => u.apiKey),
    ...duplicates('centrals', 'nit', doc.centrals, (c) => c.nit),
    ...duplicates('technicians', 'dni', doc.technicians, (t) => t.dni),
    ...duplicates('operators', 'username', doc.operators, (o) => o.username),
    ...duplicates('gazetteer', 'address', doc.gazetteer, (g) => addressKey(g.address) || undefined),
  ];
  doc.apiUsers?.forEach((u, i) => {
    // A user or password in the URL would be stored and shown in the delivery log: receivers authenticate the
    // service by its signature and x-apikey (D17), never by credentials in the URL (issue 29 item 9).
    if (u.urlApi && hasUserInfo(u.urlApi)) problems.push(`/apiUsers/${i}/urlApi: must not carry a user or password`);
    const why = targets && u.urlApi ? refusedUrl(targets, u.urlApi) : null;
    if (why) problems.push(`/apiUsers/${i}/urlApi: refused as an outbound target (${why}); see OUTBOUND_ALLOW_PRIVATE and OUTBOUND_ALLOW_HOSTS`);
  });
  doc.gazetteer?.forEach((g, i) => {
    if (!addressKey(g.address)) problems.push(`/gazetteer/${i}/address: has no letters or digits to look it up by`);
  });

  const lines = await unknownValues(
    (doc.serviceTypes ?? []).flatMap((t) => (t.line === undefined ? [] : [t.line])),
    (doc.businessLines ?? []).map((l) => l.code),
    async (codes) => (await em.find(BusinessLine, { code: { $in: codes } })).map((l) => l.code),
  );
  doc.serviceTypes?.forEach((t, i) => {
    if (t.line !== undefined && lines.has(t.line)) problems.push(`/serviceTypes/${i}/line: no business line with code '${t.line}'`);
  });

  const typeIds = await unknownValues(
    [...(doc.centrals ?? []).flatMap((c) => c.serviceTypes), ...(doc.technicians ?? []).flatMap((t) => t.serviceTypes ?? [])],
    (doc.serviceTypes ?? []).map((t) => t.id),
    async (ids) => (await em.find(ServiceType, { id: { $in: ids } })).map((t) => t.id),
  );
  const typeProblems = (section: string, i: number, ids: number[] | undefined) =>
    (ids ?? []).forEach((id, j) => {
      if (typeIds.has(id)) problems.push(`/${section}/${i}/serviceTypes/${j}: no service type with id ${id}`);
    });
  doc.centrals?.forEach((c, i) => typeProblems('centrals', i, c.serviceTypes));
  doc.technicians?.forEach((t, i) => typeProblems('technicians', i, t.serviceTypes));

  const usernames = await unknownValues(
    (doc.centrals ?? []).flatMap((c) => (c.apiUser === undefined ? [] : [c.apiUser])),
    (doc.apiUsers ?? []).map((u) => u.username),
    async (names) => (await em.find(ApiUser, { username: { $in: names } })).map((u) => u.username),
  );
  doc.centrals?.forEach((c, i) => {
    if (c.apiUser !== undefined && usernames.has(c.apiUser)) problems.push(`/centrals/${i}/apiUser: no API user with username '${c.apiUser}'`);
  });

  const nits = await unknownValues(
    (doc.technicians ?? []).map((t) => t.central),
    (doc.centrals ?? []).map((c) => c.nit),
    async (wanted) => (await em.find(Central, { nit: { $in: wanted } })).map((c) => c.nit),
  );
  doc.technicians?.forEach((t, i) => {
    if (nits.has(t.central)) problems.push(`/technicians/${i}/central: no central with nit '${t.central}'`);
  });

  // An API key identifies exactly one user: it may not stay with a user the document does not name, nor be another's
  // previous key still in its grace (keys are compared by their hashes, D24).
  const hashes = (doc.apiUsers ?? []).flatMap((u) => (u.apiKey === undefined ? [] : [apiKeyHash(u.apiKey)]));
  if (hashes.length) {
    const named = new Set((doc.apiUsers ?? []).map((u) => u.username));
    const holders = await em.find(ApiUser, {
      $or: [{ apiKeyHash: { $in: hashes } }, { previousApiKeyHash: { $in: hashes }, previousKeyUntil: { $gt: new Date() } }],
    });
    doc.apiUsers?.forEach((u, i) => {
      if (u.apiKey === undefined) return;
      const hash = apiKeyHash(u.apiKey);
      const other = holders.find((h) => h.username !== u.username && (h.apiKeyHash === hash || h.previousApiKeyHash === hash) && !named.has(h.username));
      if (other) problems.push(`/apiUsers/${i}/apiKey: already the API key of user '${other.username}'`);
    });
  }
  // D24: the credential our webhooks carry is its own secret, never the key the profile calls us with.
  doc.apiUsers?.forEach((u, i) => {
    if (u.outboundKey !== undefined && u.outboundKey === u.apiKey) problems.push(`/apiUsers/${i}/outboundKey: must differ from apiKey (the outbound credential is its own secret)`);
  });

  for (const [i, c] of (doc.centrals ?? []).entries()) {
    if ('center' in c.coverage) continue;
    const problem = await coverageProblem(em, c.coverage);
    if (problem) problems.push(`/centrals/${i}/coverage: ${problem}`);
  }
  return inDocumentOrder(problems);
}

/** Sorted by section (in SECTIONS order), then by item index; stable otherwise. */
function inDocumentOrder(problems: string[]): string[] {
  const rank = (p: string) => {
    const [, section, index] = /^\/([^/]+)\/(\d+)/.exec(p) ?? [];
    return [SECTIONS.indexOf(section as Section), Number(index ?? 0)];
  };
  return problems
    .map((p) => ({ p, r: rank(p) }))
    .sort((a, b) => a.r[0] - b.r[0] || a.r[1] - b.r[1])
    .map((x) => x.p);
}

function hasUserInfo(url: string): boolean {
  try {
    const u = new URL(url);
    return u.username !== '' || u.password !== '';
  } catch {
    return false; // not a URL: the schema's format check reports it
  }
}
