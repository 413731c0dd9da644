/**
 * Every Redis connection of the service is made here (D22): one Redis at
 * REDIS_URL, or, when REDIS_CLUSTER_NODES names seed nodes, an ioredis
 * Cluster client (REDIS_URL then gives only the user, password and TLS). The
 * queues, the workers, the real-time bus and its subscribers, the limits, the
 * nonces, the metrics and the provisioning CLI all take their connection from
 * `createRedis` or `duplicateRedis`, so a deployment switches with one
 * variable. BullMQ's queue keys carry a hash tag on a cluster
 * (`queueKeyPrefix`); every other key our code touches in one command (a
 * limiter's, a nonce, a chat counter, a metrics hash) is a single key, so
 * it needs none.
 */
import { Cluster, Redis as SingleRedis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/** A connection: one Redis or a Redis Cluster (the commands the service uses are the same on both). */
export type Redis = SingleRedis | Cluster;

/** Where Redis is: the configuration's two variables (a Config satisfies it). */
export interface RedisTarget {
  readonly redisUrl: string;
  readonly redisClusterNodes?: ReadonlyArray<{ readonly host: string; readonly port: number }>;
  /** a cluster's announced addresses mapped to where to reach them (NAT, a proxy) */
  readonly redisClusterNatMap?: Readonly<Record<string, { readonly host: string; readonly port: number }>>;
}

/** The user, password and TLS of a redis:// or rediss:// URL, for every node of a cluster. */
function nodeOptions(url: string): RedisOptions {
  const u = new URL(url);
  const out: RedisOptions = {};
  if (u.username) out.username = decodeURIComponent(u.username);
  if (u.password) out.password = decodeURIComponent(u.password);
  if (u.protocol === 'rediss:') out.tls = {};
  return out;
}

/** Whether `target` names a cluster. */
export function isCluster(target: RedisTarget): boolean {
  return (target.redisClusterNodes?.length ?? 0) > 0;
}

/**
 * A connection to `target` (a bare URL: one Redis). BullMQ workers and
 * subscribers need `maxRetriesPerRequest: null`; the runtime's command
 * connection fails fast instead (src/main/runtime.ts). On a cluster `opts`
 * apply to each node's connection.
 */
export function createRedis(target: string | RedisTarget, opts: RedisOptions = {}): Redis {
  const t: RedisTarget = typeof target === 'string' ? { redisUrl: target } : target;
  if (!isCluster(t)) return new SingleRedis(t.redisUrl, { lazyConnect: false, enableReadyCheck: true, ...opts });
  const clusterOptions: ClusterOptions = {
    lazyConnect: false,
    enableReadyCheck: true,
    clusterRetryStrategy: clusterRetryDelay,
    redisOptions: { ...nodeOptions(t.redisUrl), ...opts },
  };
  if (t.redisClusterNatMap && Object.keys(t.redisClusterNatMap).length) {
    clusterOptions.natMap = Object.fromEntries(Object.entries(t.redisClusterNatMap).map(([k, v]) => [k, { host: v.host, port: v.port }]));
  }
  // A command on a cluster that cannot serve it yet (no slots known, a failover) waits in the client's offline queue
  // unless the caller fails fast: then it is refused at once, as on one Redis.
  if (opts.enableOfflineQueue === false) clusterOptions.enableOfflineQueue = false;
  return subscriberBacksOff(new Cluster(
    t.redisClusterNodes!.map(({ host, port }) => ({ host, port })),
    clusterOptions,
  ));
}

/**
 * FLT-3: a cluster client in subscriber mode picks another node for its subscriber connection the moment that one
 * ends (ioredis's ClusterSubscriber, no delay): with every master away, thousands of connections a second. This puts
 * clusterRetryDelay before each pick, reset once a subscriber connection is ready. Left as ioredis has it when its
 * internals are not the ones known (another version): test/faults/clusterReconnect.test.ts says so.
 */
function subscriberBacksOff(cluster: Cluster): Cluster {
  const sub = (cluster as unknown as { subscriber?: { onSubscriberEnd?: unknown; getInstance?: () => SingleRedis | null } }).subscriber;
  if (!sub || typeof sub.onSubscriberEnd !== 'function' || typeof sub.getInstance !== 'function') return cluster;
  const pick = sub.onSubscriberEnd as () => void;
  let tries = 0;
  let timer: NodeJS.Timeout | undefined;
  sub.onSubscriberEnd = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      pick();
      sub.getInstance!()?.once('ready', () => (tries = 0));
    }, clusterRetryDelay(++tries));
    timer.unref();
  };
  return cluster;
}

/**
 * D21, D22: how long a cluster client whose masters are all away waits before its next try: 100 ms doubling up to 2 s
 * (one Redis's client reaches its 2 s cap too). ioredis's own (100 ms + 2 ms a try) kept a cluster client under
 * traffic reconnecting about twenty times a second for as long as the masters were away (~1 a second with this).
 * Reset once the client is ready again, so recovery stays within the cap. (A cluster client in subscriber mode
 * reconnects its subscriber connection in a loop of its own, with no delay at all: FLT-3.)
 */
export function clusterRetryDelay(times: number): number {
  return Math.min(100 * 2 ** Math.min(Math.max(times - 1, 0), 10), 2000);
}

/** Another connection to where `redis` goes, with `opts` over its own (a subscriber, a blocking worker). */
export function duplicateRedis(redis: Redis, opts: RedisOptions = {}): Redis {
  if (redis instanceof Cluster) {
    // The cluster-level offline queue follows the copy's wish too (a subscriber waits for Redis; its source may fail fast).
    const offline = opts.enableOfflineQueue === undefined ? {} : { enableOfflineQueue: opts.enableOfflineQueue };
    return subscriberBacksOff(redis.duplicate([], { ...offline, redisOptions: { ...redis.options.redisOptions, ...opts } }));
  }
  return redis.duplicate(opts);
}

/**
 * The BullMQ prefix of queue `queue` (BullMQ's rule for a cluster: a hash tag
 * in the prefix, so a queue's keys, which its Lua scripts touch together, share
 * one slot). One tag per queue spreads the queues over the masters; no job
 * spans two queues (no flows), so nothing needs them on one slot. On one
 * Redis the prefix stays QUEUE_PREFIX, as before (no key moves on upgrade).
 */
export function queueKeyPrefix(target: RedisTarget, prefix: string, queue: string): string {
  return isCluster(target) ? `${prefix}:{${queue}}` : prefix;
}

/**
 * The masters of a cluster (one Redis: itself), for the few commands that act
 * on every node's keyspace (SCAN in tests and tools).
 */
export function keyspaces(redis: Redis): SingleRedis[] {
  return redis instanceof Cluster ? redis.nodes('master') : [redis];
}

/**
 * The values of keys that may lie in different slots: one MGET on one Redis; on a cluster, which refuses a
 * multi-key command across slots (CROSSSLOT), one GET per key, sent together.
 */
export async function getMany(redis: Redis, keys: readonly string[]): Promise<Array<string | null>> {
  if (redis instanceof Cluster) return Promise.all(keys.map((k) => redis.get(k)));
  return redis.mget(...keys);
}

/**
 * D21 (issue 30): the options of a process's command connection (the runtime's: requests, producers, limits), so
 * that no caller waits for a Redis that is away: a command is refused at once while the connection is down (no
 * offline queue) and fails after `commandTimeoutMs` when Redis stops answering (0: no limit). Not for BullMQ
 * workers and subscribers, which wait for Redis by design (`maxRetriesPerRequest: null`).
 */
export function failFastOptions(commandTimeoutMs: number): RedisOptions {
  return { enableOfflineQueue: false, maxRetriesPerRequest: 1, enableAutoPipelining: true, ...(commandTimeoutMs > 0 ? { commandTimeout: commandTimeoutMs } : {}) };
}

/** Resolves once `redis` is ready (at once when it is); rejects after `ms` so a request never waits on a Redis that is down. */
export function whenReady(redis: Redis, ms: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      reject(new Error(`Redis not ready after ${ms} ms (${redis.status})`));
    }, ms);
    redis.once('ready', onReady);
  });
}

/**
 * D21: a Redis that stops answering (a partition, a frozen server) keeps its connection 'ready', so every command
 * would wait for its timeout in turn. Once a second this PINGs `redis`; a PING not answered within `timeoutMs`
 * drops the connection (ioredis reconnects), so that, until Redis answers again, commands are refused at once
 * (no offline queue, see failFastOptions). Returns the stop.
 */
export function watchRedis(redis: Redis, o: { timeoutMs: number; everyMs?: number; log: Logger }): () => void {
  let probing = false;
  const timer = setInterval(() => {
    if (probing || redis.status !== 'ready') return;
    probing = true;
    let late: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'late'>((resolve) => {
      late = setTimeout(() => resolve('late'), o.timeoutMs);
    });
    void Promise.race([redis.ping().then(() => 'ok' as const, (err: unknown) => (/timed out/i.test(String(err)) ? ('late' as const) : ('ok' as const))), timedOut])
      .then((outcome) => {
        if (outcome === 'late' && redis.status === 'ready') {
          o.log.warn({ timeoutMs: o.timeoutMs }, 'Redis stopped answering: connection dropped, reconnecting');
          redis.disconnect(true);
        }
      })
      .finally(() => {
        clearTimeout(late);
        probing = false;
      });
  }, o.everyMs ?? 1000);
  timer.unref();
  return () => clearInterval(timer);
}
