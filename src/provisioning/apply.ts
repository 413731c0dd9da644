/**
 * Writing a checked provisioning document: every row is upserted by its
 * natural key and compared before writing, so a second run changes nothing
 * (no update, no updated_at moved) and reports every row as unchanged.
 * Runs inside the caller's transaction.
 */
import { isDeepStrictEqual } from 'node:util';
import argon2 from 'argon2';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ApiUser,
  BusinessLine,
  Central,
  GazetteerEntry,
  OperatorUser,
  ServiceType,
  Technician,
} from '../db/entities/index.js';
import { setCoverage, setTechnicianPosition } from '../geo/store.js';
import { addressKey } from '../geocoding/index.js';
import { apiKeyHash, sha256Hex } from '../auth/passwords.js';
import { SECTIONS, type Point, type ProvisionDocument, type ProvisionSummary, type Section } from './document.js';

/** Serializes concurrent provisioning runs (two `npm start` on one empty database). */
const ADVISORY_LOCK = 7_310_402_611;

type Outcome = 'created' | 'updated' | 'unchanged';

/** Sets the fields of `row` that differ from `want`; says whether any did. */
function assignChanged<T extends object>(row: T, want: Partial<T>): boolean {
  let changed = false;
  for (const key of Object.keys(want) as Array<keyof T>) {
    if (!isDeepStrictEqual(row[key], want[key])) {
      row[key] = want[key] as T[keyof T];
      changed = true;
    }
  }
  return changed;
}

function byKey<T, K>(rows: T[], key: (row: T) => K): Map<K, T> {
  return new Map(rows.map((r) => [key(r), r]));
}

/**
 * The key columns of an API user after provisioning gives it `key` (D24): the
 * key's hash; a different key before it stays valid `graceS` more seconds as
 * the previous one (0: refused at once); no key revokes the current one at once.
 */
export function rotatedKey(
  row: Pick<ApiUser, 'apiKeyHash' | 'previousApiKeyHash' | 'previousKeyUntil'> | undefined,
  key: string | undefined,
  graceS: number,
  now = new Date(),
): Pick<ApiUser, 'apiKeyHash' | 'previousApiKeyHash' | 'previousKeyUntil'> {
  const hash = key === undefined ? null : apiKeyHash(key);
  const current = row?.apiKeyHash ?? null;
  if (!row || hash === current) {
    return { apiKeyHash: hash, previousApiKeyHash: row?.previousApiKeyHash ?? null, previousKeyUntil: row?.previousKeyUntil ?? null };
  }
  if (hash === null || current === null || graceS <= 0) return { apiKeyHash: hash, previousApiKeyHash: null, previousKeyUntil: null };
  return { apiKeyHash: hash, previousApiKeyHash: current, previousKeyUntil: new Date(now.getTime() + graceS * 1000) };
}

export interface ApplyOptions {
  /** how long a replaced API key stays valid (API_KEY_GRACE_S) */
  apiKeyGraceS: number;
}

export async function applyDocument(em: EntityManager, doc: ProvisionDocument, opts: ApplyOptions): Promise<ProvisionSummary> {
  await em.getConnection().execute('select pg_advisory_xact_lock(?)', [ADVISORY_LOCK], 'run', em.getTransactionContext());
  const summary = Object.fromEntries(SECTIONS.map((s) => [s, { created: 0, updated: 0, unchanged: 0 }])) as ProvisionSummary;
  const count = (section: Section, outcome: Outcome) => summary[section][outcome]++;
  const counted = (section: Section, changed: boolean) => count(section, changed ? 'updated' : 'unchanged');

  // Business lines, by code.
  const lineDocs = doc.businessLines ?? [];
  const lines = byKey(await em.find(BusinessLine, { code: { $in: lineDocs.map((l) => l.code) } }), (l) => l.code);
  for (const l of lineDocs) {
    const row = lines.get(l.code);
    if (row) counted('businessLines', assignChanged(row, { name: l.name }));
    else {
      em.create(BusinessLine, { code: l.code, name: l.name });
      count('businessLines', 'created');
    }
  }

  // Service types, by id.
  const typeDocs = doc.serviceTypes ?? [];
  const types = byKey(await em.find(ServiceType, { id: { $in: typeDocs.map((t) => t.id) } }), (t) => t.id);
  for (const t of typeDocs) {
    const want = { type: t.type, requiredOrigin: t.required_origin, requiredDestination: t.required_destination };
    const line = t.line === undefined ? null : em.getReference(BusinessLine, t.line);
    const row = types.get(t.id);
    if (!row) {
      em.create(ServiceType, { id: t.id, ...want, line });
      count('serviceTypes', 'created');
      continue;
    }
    const changed = assignChanged(row, want);
    const lineChanged = (row.line?.code ?? null) !== (t.line ?? null);
    if (lineChanged) row.line = line;
    counted('serviceTypes', changed || lineChanged);
  }

  // API users, by username.
  const userDocs = doc.apiUsers ?? [];
  const referencedUsers = (doc.centrals ?? []).flatMap((c) => (c.apiUser === undefined ? [] : [c.apiUser]));
  const users = byKey(
    await em.find(ApiUser, { username: { $in: [...userDocs.map((u) => u.username), ...referencedUsers] } }),
    (u) => u.username,
  );
  for (const u of userDocs) {
    const want = {
      passwordSha256: u.passwordSha256 ?? sha256Hex(u.password ?? ''),
      status: u.status,
      endpoints: u.endpoints,
      businessName: u.businessName,
      nit: u.nit ?? null,
      urlApi: u.urlApi ?? null,
      apiEndpoint: u.apiEndpoint ?? {},
      webhookSecret: u.webhookSecret ?? null,
      helpLine: u.helpLine ?? null,
      requiresPaymentConfirmation: u.requiresPaymentConfirmation ?? false,
      offersPerMinute: u.offersPerMinute ?? null,
    };
    const row = users.get(u.username);
    // The key is kept only as its hash (D24); the outbound key, when the document leaves it out, stays as it is.
    const keys = { ...rotatedKey(row, u.apiKey, opts.apiKeyGraceS), outboundKey: u.outboundKey ?? row?.outboundKey ?? null };
    if (row) counted('apiUsers', assignChanged(row, { ...want, ...keys }));
    else {
      users.set(u.username, em.create(ApiUser, { username: u.username, ...want, ...keys }));
      count('apiUsers', 'created');
    }
  }
  await em.flush();

  // Centrals, by nit; their coverage areas once they have ids.
  const centralDocs = doc.centrals ?? [];
  const centralNits = [...centralDocs.map((c) => c.nit), ...(doc.technicians ?? []).map((t) => t.central)];
  const centrals = byKey(await em.find(Central, { nit: { $in: centralNits } }, { populate: ['apiUser'] }), (c) => c.nit);
  const centralOutcome = new Map<string, Outcome>();
  for (const c of centralDocs) {
    const want = { name: c.name, phone: c.phone ?? null, serviceTypes: c.serviceTypes };
    const apiUser = c.apiUser === undefined ? null : users.get(c.apiUser)!;
    const row = centrals.get(c.nit);
    if (!row) {
      centrals.set(c.nit, em.create(Central, { nit: c.nit, ...want, apiUser }));
      centralOutcome.set(c.nit, 'created');
      continue;
    }
    const changed = assignChanged(row, want);
    const userChanged = (row.apiUser?.username ?? null) !== (c.apiUser ?? null);
    if (userChanged) row.apiUser = apiUser;
    centralOutcome.set(c.nit, changed || userChanged ? 'updated' : 'unchanged');
  }
  await em.flush();
  for (const c of centralDocs) {
    const central = centrals.get(c.nit)!;
    const areasChanged = await setCoverage(em, central.id, c.serviceTypes, c.coverage);
    const outcome = centralOutcome.get(c.nit)!;
    count('centrals', outcome === 'unchanged' && areasChanged ? 'updated' : outcome);
  }

  // Technicians, by dni. Rate and position are live data (surveys, reports):
  // the document gives their initial values only.
  const techDocs = doc.technicians ?? [];
  const techs = byKey(await em.find(Technician, { dni: { $in: techDocs.map((t) => t.dni) } }, { populate: ['central'] }), (t) => t.dni);
  const positions: Array<{ tech: Technician; position: Point }> = [];
  for (const t of techDocs) {
    const central = centrals.get(t.central)!;
    const want = {
      names: t.names,
      phone: t.phone ?? null,
      identifier: t.identifier ?? null,
      available: t.available ?? true,
      serviceTypes: t.serviceTypes ?? central.serviceTypes,
      status: t.status ?? ('ACTIVO' as const),
    };
    const row = techs.get(t.dni);
    if (!row) {
      const tech = em.create(Technician, { dni: t.dni, central, ...want, rate: t.rate ?? 5, lat: null, lng: null, positionAt: null });
      if (t.position) positions.push({ tech, position: t.position });
      count('technicians', 'created');
      continue;
    }
    const changed = assignChanged(row, want);
    const centralChanged = row.central.nit !== t.central;
    if (centralChanged) row.central = central;
    const placed = t.position !== undefined && row.lat == null;
    if (placed) positions.push({ tech: row, position: t.position! });
    counted('technicians', changed || centralChanged || placed);
  }
  await em.flush();
  for (const { tech, position } of positions) await setTechnicianPosition(em, tech.id, position);

  // Operators, by username; a password is re-hashed only when it no longer verifies.
  const opDocs = doc.operators ?? [];
  const ops = byKey(await em.find(OperatorUser, { username: { $in: opDocs.map((o) => o.username) } }), (o) => o.username);
  for (const o of opDocs) {
    const role = o.role ?? 'operator';
    const row = ops.get(o.username);
    if (!row) {
      em.create(OperatorUser, { username: o.username, role, passwordHash: await argon2.hash(o.password) });
      count('operators', 'created');
      continue;
    }
    const changed = assignChanged(row, { role });
    const stale = !(await argon2.verify(row.passwordHash, o.password));
    if (stale) row.passwordHash = await argon2.hash(o.password);
    counted('operators', changed || stale);
  }

  // Gazetteer, by normalized address.
  const placeDocs = doc.gazetteer ?? [];
  const places = byKey(
    await em.find(GazetteerEntry, { addressKey: { $in: placeDocs.map((g) => addressKey(g.address)) } }),
    (g) => g.addressKey,
  );
  for (const g of placeDocs) {
    const key = addressKey(g.address);
    const want = { address: g.address, lat: g.lat, lng: g.lng, ciudad: g.ciudad ?? null, departamento: g.departamento ?? null };
    const row = places.get(key);
    if (row) counted('gazetteer', assignChanged(row, want));
    else {
      em.create(GazetteerEntry, { addressKey: key, ...want });
      count('gazetteer', 'created');
    }
  }
  await em.flush();
  return summary;
}
