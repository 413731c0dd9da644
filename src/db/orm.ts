import { fileURLToPath } from 'node:url';
import { MikroORM, defineConfig, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities/index.js';

const migrationsPath = fileURLToPath(new URL('./migrations', import.meta.url));

/** the most PostgreSQL connections one process holds */
const POOL_MAX = 10;

export function ormOptions(databaseUrl: string, overrides: Partial<Options> = {}): Options {
  return defineConfig({
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    // Schema changes come only from the committed migrations, never from the entities at run time.
    ensureDatabase: false,
    allowGlobalContext: false,
    forceUtcTimezone: true,
    pool: { min: 0, max: POOL_MAX },
    migrations: {
      path: migrationsPath,
      glob: '!(*.d).js',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      emit: 'ts',
      silent: true,
    },
    debug: false,
    ...overrides,
  });
}

/**
 * D21 (issue 30): bounds on waiting for PostgreSQL, so a request answers 503 instead of hanging while it is away:
 * opening a connection and waiting for one of the pool give up after `connectMs`; a statement not answered within
 * `queryMs` fails on the client (a stalled connection; 0: no limit).
 */
export function failFastPg(connectMs: number, queryMs: number, applicationName?: string): Partial<Options> {
  return {
    driverOptions: {
      acquireConnectionTimeout: connectMs,
      connection: {
        connectionTimeoutMillis: connectMs,
        ...(queryMs > 0 ? { query_timeout: queryMs } : {}),
        // pg_stat_activity names the role each connection serves (an operator's first question under load)
        ...(applicationName ? { application_name: applicationName } : {}),
      },
    },
  };
}

/**
 * ISS32-14: a pool that keeps `n` connections open however long they stay idle (the others close after the pool's
 * idle timeout, 30 s): a process whose work must not wait for a new PostgreSQL backend after a quiet spell.
 */
export function keptConnections(n: number): Partial<Options> {
  return { pool: { min: n, max: POOL_MAX } };
}

export async function createOrm(databaseUrl: string, overrides: Partial<Options> = {}): Promise<MikroORM> {
  return MikroORM.init(ormOptions(databaseUrl, overrides));
}

export type { MikroORM };
