/**
 * Mocha root hooks: a fresh, migrated PostgreSQL database per run and a Redis
 * key prefix of its own; outside HTTP is blocked except what nock allows.
 * Fails with a clear message when PostgreSQL or Redis cannot be reached, and
 * at its end when PostgreSQL refused a statement as malformed
 * (helpers/refused.ts).
 */
import nock from 'nock';
import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { resetConfig } from '../config/index.js';
import { dropDatabase, ensureDatabase, migrate } from '../src/db/database.js';
import { createOrm } from '../src/db/orm.js';
import { checkPostgres, checkRedis } from './helpers/services.js';
import { deleteKeys } from '../bench/cleanup.js';
import { testEnded, testStarted, unexpectedRefusals, watchRefusedStatements } from './helpers/refused.js';

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
// No background sweeper: over the shared test database it would act on other suites' rows (re-enqueue
// their jobs on this suite's queues). Tests run sweeps explicitly; a suite that tests the schedule sets it.
process.env.SWEEP_INTERVAL_MS ??= '0';
// TC-1's gate reads the shared test database: another suite's offer left ABIERTA past its deadline (no evaluation
// worker there) would hold this suite's background jobs. The gate's own tests (test/queues/closingGate.test.ts) set it.
process.env.CLOSING_YIELD_MAX_MS ??= '0';
// Every test file logs in from 127.0.0.1 on the same Redis prefix: the login limit's own tests set it back to 5.
process.env.LOGIN_RATE_LIMIT ??= '1000';
// Likewise failed operator logins per account ('ops' is every suite's operator; the fuzz tries wrong passwords on it):
// the limit's own tests (test/auth/loginAccount.test.ts) set it low on a prefix of their own.
process.env.LOGIN_ACCOUNT_LIMIT ??= '100000';
// Likewise every failed Basic or key authentication counts against 127.0.0.1 and a few shared wrong usernames
// and keys, over the whole run: the limit's own tests set both low.
process.env.AUTH_FAIL_LIMIT_IP ??= '100000';
process.env.AUTH_FAIL_LIMIT_ID ??= '100000';
// Likewise the customer's code requests and checks per client IP: the limit's own test sets it low on a prefix of its own.
process.env.TRACKING_LIMIT_IP ??= '100000';
// Likewise D24's offer quota per generator: suites post offers in bursts; the quota's own test sets a generator's offersPerMinute.
process.env.QUOTA_OFFERS_PER_MIN ??= '1000000';
// Tests change API users' rows directly and expect the next request to see it: no credential cache,
// except in the cache's own tests (test/auth/cache.test.ts).
process.env.AUTH_CACHE_TTL_MS ??= '0';
resetConfig();
watchRefusedStatements();

export const mochaHooks = {
  beforeEach(this: Mocha.Context): void {
    testStarted(this.currentTest?.fullTitle() ?? '(a hook)');
  },
  afterEach(this: Mocha.Context): void {
    testEnded(this.currentTest?.fullTitle() ?? '(a hook)');
  },
  afterAll(): void {
    const refused = unexpectedRefusals();
    if (refused.length) {
      const list = refused.map((r) => `- ${r.test}: ${r.code} ${r.message}\n    ${r.statement.replace(/\s+/g, ' ').slice(0, 300)}`);
      throw new Error(`PostgreSQL refused ${refused.length} statement(s) as malformed (SQLSTATE class 42):\n${list.join('\n')}`);
    }
  },
};

export async function mochaGlobalSetup(): Promise<void> {
  await checkPostgres(process.env.DATABASE_URL!);
  await checkRedis(process.env.REDIS_URL!);
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
  // The Redis Cluster `.ci/run` started outlives the run: this run's keys go, on every master (a cluster this run
  // started itself goes with its processes, test/helpers/redisCluster.ts).
  const nodes = process.env.TEST_REDIS_CLUSTER_NODES?.trim();
  if (nodes) {
    const cluster = new Cluster(nodes.split(',').map((n) => ({ host: n.slice(0, n.lastIndexOf(':')).trim(), port: Number(n.slice(n.lastIndexOf(':') + 1)) })));
    try {
      await new Promise<void>((resolve, reject) => {
        cluster.once('ready', resolve);
        cluster.once('error', reject);
      });
      await deleteKeys(cluster, process.env.QUEUE_PREFIX!);
    } finally {
      cluster.disconnect();
    }
  }
}
