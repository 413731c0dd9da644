/**
 * A statement sent straight to the pg driver, with `$1`… parameters, for the
 * hot paths of issue 12 (the closing of windows, the 6.1's record, the
 * offer's INSERT, the acceptance). `em.execute` formats every parameter into
 * the SQL text (MikroORM) and then goes through knex: measured in-process at
 * ~285 µs of CPU per statement, against ~55 µs for the same statement through
 * the driver (docs/decisions.md, "Auction under load", eighth part). The
 * statement runs on the caller's transaction when it runs one (its
 * connection, so it sees and takes part in what the transaction does), else
 * on a connection of the ORM's pool. Values go as the driver sends them: a
 * JS array as a PostgreSQL array (`= any($1::uuid[])`), a Date as a
 * timestamp with its offset; jsonb as JSON text. Rows come back as
 * MikroORM's connections parse them (timestamps stay strings).
 */
import type { EntityManager } from '@mikro-orm/postgresql';

interface PgConnection {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

interface KnexClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<unknown>;
}

/** The rows a statement returns. */
export async function sql<R extends object>(em: EntityManager, text: string, values: unknown[] = []): Promise<R[]> {
  return (await run(em, text, values)).rows as R[];
}

/** The rows a statement changed (an UPDATE or DELETE without RETURNING). */
export async function sqlCount(em: EntityManager, text: string, values: unknown[] = []): Promise<number> {
  return (await run(em, text, values)).rowCount ?? 0;
}

async function run(em: EntityManager, text: string, values: unknown[]) {
  // a transaction's knex client hands out its own connection (and keeps it on release)
  const client = ((em.getTransactionContext() as { client?: KnexClient } | undefined)?.client ??
    em.getConnection().getKnex().client) as KnexClient;
  const connection = await client.acquireConnection();
  try {
    return await connection.query(text, values);
  } finally {
    await client.releaseConnection(connection);
  }
}
