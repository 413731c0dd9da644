/**
 * A statement sent straight to the pg driver, with `$1`… parameters, for the
 * hot paths (the closing of windows, the 6.1's record, the offer's INSERT,
 * the acceptance). `em.execute` formats every parameter into the SQL text
 * (MikroORM) and then goes through knex, several times the CPU of the same
 * statement through the driver (docs/decisions.md AUC-16). The
 * statement runs on the caller's transaction when it runs one (its
 * connection, so it sees and takes part in what the transaction does), else
 * on a connection of the ORM's pool. Values go as the driver sends them: a
 * JS array as a PostgreSQL array (`= any($1::uuid[])`), a Date as a
 * timestamp with its offset; jsonb as JSON text. Rows come back as
 * MikroORM's connections parse them (timestamps stay strings).
 *
 * A statement made by `prepared` is parsed and planned by PostgreSQL once per
 * connection and then only bound and run (after five runs PostgreSQL keeps
 * its generic plan when that plan is estimated no worse than the custom
 * ones), which saves the backend's parsing and planning on every run
 * (docs/decisions.md AUC-16). Only
 * for texts fixed in the code: each distinct text stays prepared on every
 * connection that ran it, so a text built per call would grow without bound.
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

/** A statement whose text is fixed in the code, prepared once per connection under a name derived from that text. */
export interface Prepared {
  readonly name: string;
  readonly text: string;
}

export function prepared(text: string): Prepared {
  return { name: `hot_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text };
}

type Statement = string | Prepared;

interface PgConnection {
  query(config: { text: string; values: unknown[]; name?: string }): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

interface KnexClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<unknown>;
}

/** The rows a statement returns. */
export async function sql<R extends object>(em: EntityManager, statement: Statement, values: unknown[] = []): Promise<R[]> {
  return (await run(em, statement, values)).rows as R[];
}

/** The rows a statement changed (an UPDATE or DELETE without RETURNING). */
export async function sqlCount(em: EntityManager, statement: Statement, values: unknown[] = []): Promise<number> {
  return (await run(em, statement, values)).rowCount ?? 0;
}

async function run(em: EntityManager, statement: Statement, values: unknown[]) {
  // a transaction's knex client hands out its own connection (and keeps it on release)
  const client = ((em.getTransactionContext() as { client?: KnexClient } | undefined)?.client ??
    em.getConnection().getKnex().client) as KnexClient;
  const connection = await client.acquireConnection();
  try {
    return await connection.query(typeof statement === 'string' ? { text: statement, values } : { ...statement, values });
  } finally {
    await client.releaseConnection(connection);
  }
}

/** A timestamptz read by plain SQL (MikroORM's pg driver leaves it a string), parsed as the ORM parses it. */
export function readDate<T extends Date | null>(em: EntityManager, value: T): T {
  return (value === null ? null : em.getPlatform().parseDate(value as unknown as string)) as T;
}
