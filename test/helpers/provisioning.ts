/** Helpers for the provisioning tests: the demo document and whole-table snapshots. */
import { readFileSync } from 'node:fs';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DEMO_PATH, type ProvisionDocument } from '../../src/provisioning/document.js';

/** A fresh copy of config/demo.json (the contract's example.json plus the department capitals). */
export function demoDocument(): ProvisionDocument {
  return JSON.parse(readFileSync(DEMO_PATH, 'utf8')) as ProvisionDocument;
}

/** The contract's example.json: the demo document without the capitals it adds to the gazetteer. */
export function exampleDocument(): ProvisionDocument {
  const doc = demoDocument();
  doc.gazetteer = doc.gazetteer!.slice(0, 3);
  return doc;
}

export const PROVISIONED_TABLES = [
  'business_line',
  'service_type',
  'api_user',
  'central',
  'central_area',
  'technician',
  'operator_user',
  'gazetteer',
] as const;

/** Every row of every provisioned table, as JSON (geometry included), in a stable order. */
export async function snapshot(em: EntityManager): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of PROVISIONED_TABLES) {
    const [row] = await em
      .getConnection()
      .execute<Array<{ rows: unknown[] }>>(`select coalesce(jsonb_agg(to_jsonb(t) order by t::text), '[]') as rows from "${table}" t`);
    out[table] = row.rows;
  }
  return out;
}

/** How many rows each provisioned table holds. */
export async function rowCounts(em: EntityManager): Promise<Record<string, number>> {
  const snap = await snapshot(em);
  return Object.fromEntries(Object.entries(snap).map(([t, rows]) => [t, rows.length]));
}

export const EMPTY_COUNTS = Object.fromEntries(PROVISIONED_TABLES.map((t) => [t, 0]));
