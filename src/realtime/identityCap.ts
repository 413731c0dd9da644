/**
 * At most SOCKETS_PER_IDENTITY open sockets per identity (D24), across every
 * API process: each identity's sockets are members of a Redis sorted set
 * scored by when their lease ends. A socket takes its place at the upgrade
 * (one atomic script: drop dead leases, count, add), renews it on each
 * re-check tick and gives it back when it closes; the sockets of a process
 * that died stop counting when their leases end (3 re-check periods).
 * When Redis does not answer, the socket is let in (logged): the cap guards
 * against a flood, not against Redis being away.
 */
import type { Logger } from 'pino';
import type { Redis } from '../queues/redis.js';
import type { Identity } from './auth.js';

const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
return 1`;

/** Who counts as one identity: an API user (generator), a technician, an operator, a tracked service (its customer). */
export function identityKey(id: Identity): string {
  switch (id.kind) {
    case 'generator':
      return `generator:${id.apiUserId}`;
    case 'technician':
      return `technician:${id.technicianId}`;
    case 'operator':
      return `operator:${id.operatorId}`;
    case 'customer':
      return `customer:${id.offerUuid}`;
  }
}

export interface IdentityCap {
  /** true when the socket may open (its place taken), false past the cap */
  take(identity: Identity, socketId: string): Promise<boolean>;
  /** renews the leases of these open sockets */
  renew(sockets: Iterable<{ identity: Identity; id: string }>): Promise<void>;
  release(identity: Identity, socketId: string): void;
}

export function identityCap(redis: Redis, prefix: string, limit: number, leaseMs: number, log: Logger): IdentityCap {
  // one hash tag for every identity's set: on a Redis Cluster (D22) they share a slot, so the renewal's pipeline holds
  const keyOf = (id: Identity) => `${prefix}-{sockets}:${identityKey(id)}`;
  return {
    async take(identity, socketId) {
      const now = Date.now();
      try {
        const ok = await redis.eval(TAKE, 1, keyOf(identity), String(now), String(now + leaseMs), String(limit), socketId);
        return ok === 1;
      } catch (err) {
        log.warn({ err }, 'socket cap not checked (Redis); socket let in');
        return true;
      }
    },
    async renew(sockets) {
      const until = Date.now() + leaseMs;
      const pipeline = redis.pipeline();
      let n = 0;
      for (const s of sockets) {
        pipeline.zadd(keyOf(s.identity), until, s.id);
        pipeline.pexpireat(keyOf(s.identity), until);
        n++;
      }
      if (n) await pipeline.exec();
    },
    release(identity, socketId) {
      redis.zrem(keyOf(identity), socketId).catch((err: unknown) => log.warn({ err }, 'socket cap place not released; its lease ends it'));
    },
  };
}
