/**
 * Checks that the test run's PostgreSQL and Redis answer, failing fast with a
 * message that says what to start or set (used by test/setup.ts).
 */
import pg from 'pg';
import { Redis } from 'ioredis';

const CONNECT_TIMEOUT_MS = 3000;

export async function checkPostgres(url: string): Promise<void> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (err) {
    throw new Error(
      `PostgreSQL is not reachable at ${admin.host} (${(err as Error).message}). Start it, or set TEST_DATABASE_URL.`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function checkRedis(url: string): Promise<void> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: () => null,
  });
  // The socket's own error (e.g. ECONNREFUSED) says more than the rejection ("Connection is closed").
  let cause: Error | undefined;
  redis.on('error', (e: Error) => (cause ??= e));
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw new Error(`Redis is not reachable at ${new URL(url).host} (${(cause ?? (err as Error)).message}). Start it, or set TEST_REDIS_URL.`);
  } finally {
    redis.disconnect();
  }
}
