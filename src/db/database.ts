import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';

/** Creates the database named in `url` when it does not exist (for a first `npm start`). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) {
      // Two first starts at once: the one that loses the race finds the database made (42P04, or 23505
      // on pg_database's unique index when both passed the check) and goes on.
      await client.query(`create database "${name.replaceAll('"', '""')}"`).catch((err: unknown) => {
        const code = (err as { code?: string }).code;
        if (code !== '42P04' && code !== '23505') throw err;
      });
    }
  } finally {
    await client.end();
  }
}

export async function dropDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`drop database if exists "${name.replaceAll('"', '""')}" with (force)`);
  } finally {
    await client.end();
  }
}

/** The advisory lock key migrations run under (any fixed bigint; ours is "SOB-MIGR" in ASCII). */
export const MIGRATION_LOCK_KEY = '6003089590645770066';

/**
 * Applies pending migrations; returns the names applied (none: a no-op).
 * Under a PostgreSQL session advisory lock held on a connection of its own,
 * so two `npm start` / `npm run migrate` at once run them one after the
 * other: the second finds nothing pending. `then` runs under the same lock
 * after them (`npm start` loads the demo there, so two first starts do not
 * both load it). The lock goes with the session if the process dies.
 */
export async function migrate(orm: MikroORM, then?: () => Promise<unknown>): Promise<string[]> {
  const client = new pg.Client({ connectionString: orm.config.get('clientUrl') });
  await client.connect();
  try {
    await client.query(`select pg_advisory_lock(${MIGRATION_LOCK_KEY}::bigint)`);
    const applied = await orm.migrator.up();
    await then?.();
    return applied.map((m) => m.name);
  } finally {
    await client.query(`select pg_advisory_unlock(${MIGRATION_LOCK_KEY}::bigint)`).catch(() => undefined);
    await client.end();
  }
}
