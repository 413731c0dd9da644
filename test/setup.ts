/**
 * Mocha root hooks: a fresh, migrated PostgreSQL database per run and a Redis
 * key prefix of its own; outside HTTP is blocked except what nock allows.
 * Fails with a clear message when PostgreSQL or Redis cannot be reached.
 */
import nock from 'nock';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { resetConfig } from '../config/index.js';
import { dropDatabase, ensureDatabase, migrate } from '../src/db/database.js';
import { createOrm } from '../src/db/orm.js';

const run = `${process.pid}_${randomBytes(3).toString('hex')}`;
const baseDb = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbUrl = new URL(baseDb);
dbUrl.pathname = `/broker_test_${run}`;

process.env.NODE_ENV = 'test';
process.env.DATABASE_URL = dbUrl.toString();
process.env.REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
process.env.QUEUE_PREFIX = `test_${run}`;
process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';
process.env.OFFER_RESPONSE_WINDOW_MS ??= '1500';
process.env.WEBHOOK_TIMEOUT_MS ??= '2000';
process.env.NOTIFICATION_BACKOFF_MS ??= '100';
resetConfig();

async function checkPostgres(): Promise<void> {
  const admin = new URL(dbUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: 3000 });
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

async function checkRedis(): Promise<void> {
  const redis = new Redis(process.env.REDIS_URL!, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 3000, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw new Error(`Redis is not reachable at ${process.env.REDIS_URL} (${(err as Error).message}). Start it, or set TEST_REDIS_URL.`);
  } finally {
    redis.disconnect();
  }
}

export async function mochaGlobalSetup(): Promise<void> {
  await checkPostgres();
  await checkRedis();
  await ensureDatabase(process.env.DATABASE_URL!);
  const orm = await createOrm(process.env.DATABASE_URL!);
  try {
    await migrate(orm);
  } finally {
    await orm.close(true);
  }
  nock.disableNetConnect();
  nock.enableNetConnect((host) => /^(127\.0\.0\.1|localhost|\[::1\]|::1)(:\d+)?$/.test(host));
}

export async function mochaGlobalTeardown(): Promise<void> {
  await dropDatabase(process.env.DATABASE_URL!).catch(() => undefined);
  const redis = new Redis(process.env.REDIS_URL!);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${process.env.QUEUE_PREFIX}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
