/**
 * Provisioning (../../shared/contracts/provisioning.md): a JSON document of
 * business lines, service types, API users, centrals, technicians, operators
 * and gazetteer rows, checked completely, then upserted in one transaction.
 * An invalid document writes nothing and yields every problem with its path.
 */
import { readFile } from 'node:fs/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { applyDocument } from './apply.js';
import type { ProvisionDocument, ProvisionSummary } from './document.js';
import { config } from '../../config/index.js';
import { configTargets, type TargetPolicy } from '../webhooks/targets.js';
import { checkReferences, checkSchema } from './validate.js';

export type ProvisionResult =
  | { ok: true; doc: ProvisionDocument; summary: ProvisionSummary }
  | { ok: false; problems: string[] };

/** `targets`: where tenants' URLs may point (the process's configuration by default). */
export async function provision(
  em: EntityManager,
  input: unknown,
  targets: TargetPolicy = configTargets(config()),
  graceS: number = config().apiKeyGraceS,
): Promise<ProvisionResult> {
  const checked = checkSchema(input);
  if (!checked.ok) return checked;
  const { doc } = checked;
  const problems = await checkReferences(em.fork(), doc, targets);
  if (problems.length) return { ok: false, problems };
  const summary = await em.fork().transactional((tx) => applyDocument(tx, doc, { apiKeyGraceS: graceS }));
  return { ok: true, doc, summary };
}

export type FileRead = { ok: true; input: unknown } | { ok: false; problem: string };

/** The parsed JSON of a file, or why it could not be read or parsed. */
export async function readDocumentFile(path: string): Promise<FileRead> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    return { ok: false, problem: `cannot read ${path}: ${(err as Error).message}` };
  }
  try {
    return { ok: true, input: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, problem: `${path} is not valid JSON: ${(err as Error).message}` };
  }
}

export type { ProvisionDocument, ProvisionSummary };
