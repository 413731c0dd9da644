/**
 * What every process role shares: the validated configuration, the logger,
 * the ORM, Redis and the queue producers; closed in order on shutdown. The
 * shape is the domain's (src/domain/ports.ts); this file builds it from the
 * real adapters.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { config as loadConfig, ConfigError, type Config } from '../../config/index.js';
import { createOrm, failFastPg, keptConnections } from '../db/orm.js';
import { logger } from '../logger.js';
import { Queues } from '../queues/queues.js';
import { createRedis, duplicateRedis, failFastOptions, watchRedis, whenReady, type Redis } from '../queues/redis.js';
import { RedisEventPublisher } from '../realtime/bus.js';
import { createGeocoder } from '../geocoding/index.js';
import type { Runtime } from '../domain/ports.js';
import { CommitSteps } from '../domain/offers/lifecycle/announce.js';
import { IdempotencyActs } from '../api/idempotency.js';
import { CredentialCache, subscribeAuthInvalidation } from '../auth/cache.js';

export type { Runtime };

/**
 * ISS32-14: opens `n` connections of the pool at once, so that the first window after start does not wait for new
 * backends either. PostgreSQL away at start delays it at most the connect timeout (D21); the pool opens them later.
 */
async function openConnections(orm: Runtime['orm'], n: number, log: Logger): Promise<void> {
  const knex = orm.em.getConnection().getKnex();
  await Promise.all(Array.from({ length: n }, () => knex.raw('select 1'))).catch((err: unknown) =>
    log.warn({ err: String(err) }, 'PostgreSQL connections not opened at start; they open with the first statements'),
  );
}

export interface RuntimeOptions {
  log?: Logger;
  /** named in pg_stat_activity (`broker <role>`) */
  role?: string;
  /** PostgreSQL connections opened at start and kept open through quiet spells (ISS32-14); none by default */
  keptDbConnections?: number;
}

export async function createRuntime(cfg: Config = loadConfig(), opts: RuntimeOptions = {}): Promise<Runtime> {
  const log = opts.log ?? logger();
  const kept = opts.keptDbConnections ?? 0;
  // D21: bounded waits for PostgreSQL and Redis (a 503 instead of a hang, src/outage.ts).
  const orm = await createOrm(cfg.databaseUrl, {
    ...failFastPg(cfg.dbConnectTimeoutMs, cfg.dbQueryTimeoutMs, opts.role ? `broker ${opts.role}` : undefined),
    ...(kept > 0 ? keptConnections(kept) : {}),
  });
  if (kept > 0) await openConnections(orm, kept, log);
  // Fail fast: a command while Redis is away is refused at once (no offline queue) or after
  // REDIS_COMMAND_TIMEOUT_MS, so a request whose change is committed is answered and one that needs Redis
  // answers 503 (the reconcile repairs a lost enqueue). Workers and the real-time subscriber have
  // connections of their own, which wait for Redis.
  const redis = createRedis(cfg, failFastOptions(cfg.redisCommandTimeoutMs));
  // The queue producers have a connection of their own, sending each command as it comes (ISS32-1): BullMQ defines
  // its 60-odd Lua scripts on the connection it is given, and ioredis copies every defined script onto each
  // pipeline it makes, which with auto-pipelining is one per tick; on the runtime's connection (the limits, the
  // events, the quota: auto-pipelined) that copy was a tenth of the API process's CPU under a burst.
  const producers = duplicateRedis(redis, { enableAutoPipelining: false });
  // Without an offline queue a command sent before the first connection is refused: wait for it a moment
  // (a process started while Redis is away still starts, and answers 503 where it needs Redis).
  await Promise.all(
    [redis, producers].map((r) => whenReady(r, Math.max(1000, cfg.redisCommandTimeoutMs)).catch((err: unknown) => log.warn({ err: String(err) }, 'Redis not ready at start'))),
  );
  // ioredis reports each failed reconnection; without a listener it prints them to stderr
  redis.on('error', (err: unknown) => log.warn({ err: String(err) }, 'Redis connection error'));
  producers.on('error', (err: unknown) => log.warn({ err: String(err) }, 'Redis connection error (queue producers)'));
  const stopWatching = [redis, producers].map((r) => watchRedis(r, { timeoutMs: cfg.redisCommandTimeoutMs || 3000, log }));
  const queues = new Queues(producers, cfg.queuePrefix, cfg, cfg);
  // Without a listener BullMQ prints connection errors to the console; log them as JSON lines instead.
  for (const q of queues.all()) q.on('error', (err) => log.warn({ queue: q.name, err }, 'queue connection error'));
  const events = new RedisEventPublisher(redis, cfg.queuePrefix);
  const geocoder = createGeocoder(cfg, () => orm.em.fork());
  const authCache = new CredentialCache(cfg.authCacheTtlMs);
  const unsubscribe = cfg.authCacheTtlMs > 0 ? subscribeAuthInvalidation(cfg, cfg.queuePrefix, authCache, log) : async () => undefined;
  let closed = false;
  const rt: Runtime = {
    config: cfg,
    log,
    orm,
    redis,
    queues,
    events,
    geocoder,
    authCache,
    acceptanceSends: null,
    closingGate: null,
    closingRun: null,
    async close() {
      if (closed) return;
      closed = true;
      for (const stop of stopWatching) stop();
      await rt.acceptanceSends?.drain();
      await unsubscribe();
      await queues.close();
      await orm.close(true);
      producers.disconnect();
      redis.disconnect();
    },
  };
  // Steps declared on a transaction (a transition's announcement) run after its commit.
  orm.em.getEventManager().registerSubscriber(new CommitSteps(rt));
  // A request acting under an Idempotency-Key marks its claim in the act's own transaction (D24).
  orm.em.getEventManager().registerSubscriber(new IdempotencyActs());
  return rt;
}

/** Loads the configuration or exits with a message naming the bad variable (STYLE 12). */
export function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
