/**
 * Issue 12.1: POST /oferta on its common path, once the generator's
 * credentials are cached: one statement to PostgreSQL (the offer and its
 * audit row) and, to Redis, the failed-authentication limit's read, the
 * generator's offer quota (D24: one atomic increment) and the two jobs (distribution now, evaluation at the deadline). Concurrent
 * requests write together: while an earlier write is in flight, the offers
 * that arrive go as one INSERT and their jobs as one pipeline per queue.
 * Counted at the drivers; not a timing.
 */
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { resetDb } from '../helpers/db.js';
import { makeServiceType } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { makeGenerator, offerBody } from '../helpers/offers.js';
import { clearQueues } from '../helpers/queues.js';
import { statementsOf } from '../helpers/statements.js';
import { ApiUser, Offer, OfferTransition } from '../../src/db/entities/index.js';
import { createOffer } from '../../src/domain/offers/create/create.js';
import type { OfferInput } from '../../src/domain/offers/create/input.js';
import { jobId } from '../../src/queues/registry.js';
import { authFailLimit } from '../../src/auth/failLimit.js';
import { offerQuotaKeyPrefix, takeOfferQuota } from '../../src/api/offers/quota.js';

/** The Redis commands sent while `fn` runs (every ioredis client of this process), by name. */
async function redisCommandsOf(fn: () => Promise<unknown>): Promise<string[]> {
  const proto = Redis.prototype as unknown as { sendCommand: (cmd: { name: string }, ...rest: unknown[]) => unknown };
  const original = proto.sendCommand;
  const seen: string[] = [];
  proto.sendCommand = function (this: unknown, cmd: { name: string }, ...rest: unknown[]) {
    seen.push(cmd.name);
    return original.call(this, cmd, ...rest);
  };
  try {
    await fn();
  } finally {
    proto.sendCommand = original;
  }
  return seen;
}

describe('POST /oferta: round trips on the common path (issue 12.1)', () => {
  let app: TestApp;

  before(async () => {
    app = await startApp({ env: { AUTH_CACHE_TTL_MS: '60000' } });
    await resetDb(app.rt.orm);
    await makeServiceType(app.rt.orm.em.fork(), { id: 1 });
  });
  after(async () => {
    await clearQueues(app.rt);
    await app.close();
  });

  it('one statement to PostgreSQL and four Redis commands (one read, the quota, two jobs) once the credentials are cached', async () => {
    const generator = await makeGenerator(app.rt.orm.em.fork());
    const post = () => app.client.post('api/v3/oferta', { headers: generator.headers, json: offerBody() });
    expect((await post()).statusCode).to.equal(200); // warms the credential cache
    let status = 0;
    let redis: string[] = [];
    const statements = await statementsOf(async () => {
      redis = await redisCommandsOf(async () => {
        status = (await post()).statusCode;
      });
    });
    expect(status).to.equal(200);
    expect(statements, statements.join('\n---\n')).to.have.length(1);
    // the failed-authentication limit's counts and trust marker in one MGET; the offer quota (D24, RET-6); the two jobs
    expect(redis, redis.join(', ')).to.deep.equal(['mget', 'evalsha', 'evalsha', 'evalsha']);
  });

  it('twenty checks at once: the failed-authentication reads and the quota increments go together, two commands each for twenty (ISS32-2, ISS32-15)', async () => {
    const generator = await makeGenerator(app.rt.orm.em.fork());
    const user = await app.rt.orm.em.fork().findOneOrFail(ApiUser, { id: generator.user.id });
    const guard = authFailLimit(app.rt);
    // the counters are keyed by API user id, which restarts with each suite's database reset: an earlier suite's count may still run
    const quotaKey = `${offerQuotaKeyPrefix(app.rt.config.queuePrefix)}:${user.id}`;
    const before = Number((await app.rt.redis.get(quotaKey)) ?? 0);
    let passed: unknown[] = [];
    const redis = await redisCommandsOf(async () => {
      passed = await Promise.all(
        Array.from({ length: 20 }, (_, i) => Promise.all([guard.forClient(`10.0.0.${i}`).begin('basic', user.username), takeOfferQuota(app.rt, user)])),
      );
    });
    expect(passed).to.have.length(20);
    // one goes alone while none is in flight, the other nineteen together
    expect(redis.filter((c) => c === 'mget'), redis.join(', ')).to.have.length(2);
    expect(redis.filter((c) => c === 'evalsha'), redis.join(', ')).to.have.length(2);
    expect(Number(await app.rt.redis.get(quotaKey)) - before, 'the quota counted every offer once').to.equal(20);
  });

  it('twenty offers at once: two INSERTs (one alone while none is in flight, then the other nineteen together), every offer with its audit row and both jobs (ISS32-15)', async () => {
    const generator = await makeGenerator(app.rt.orm.em.fork());
    const user = await app.rt.orm.em.fork().findOneOrFail(ApiUser, { id: generator.user.id });
    const bodies = Array.from({ length: 20 }, () => offerBody());
    let outcomes: Array<{ kind: string; uuid: string }> = [];
    const statements = await statementsOf(async () => {
      outcomes = await Promise.all(bodies.map((b) => createOffer(app.rt, user, b as OfferInput)));
    });
    expect(outcomes.map((o) => o.kind)).to.deep.equal(bodies.map(() => 'created'));
    const inserts = statements.filter((s) => /insert into offer \(/.test(s));
    expect(inserts.length, 'INSERTs for 20 offers').to.equal(2);
    const uuids = bodies.map((b) => b.uuid as string);
    const em = app.rt.orm.em.fork();
    expect(await em.count(Offer, { uuid: { $in: uuids }, state: 'ABIERTA' })).to.equal(20);
    expect(await em.count(OfferTransition, { offer: { $in: uuids }, fromState: null, toState: 'ABIERTA' })).to.equal(20);
    for (const uuid of uuids) {
      expect(await app.rt.queues.get('offer-distribution').getJob(jobId('distribute', uuid)), uuid).to.not.equal(undefined);
      expect(await app.rt.queues.get('offer-evaluation').getJob(jobId('evaluate', uuid)), uuid).to.not.equal(undefined);
    }
  });

  it('a batch answers each offer for itself: a uuid given twice is written from its first body, an unknown type is refused', async () => {
    const generator = await makeGenerator(app.rt.orm.em.fork());
    const user = await app.rt.orm.em.fork().findOneOrFail(ApiUser, { id: generator.user.id });
    const bodies = Array.from({ length: 12 }, () => offerBody());
    // past the first (written alone), so in one batch: the same uuid twice, and an unknown type
    bodies[9] = { ...bodies[8], observaciones: 'the second body' };
    bodies[8].observaciones = 'the first body';
    bodies[10].tipoServicio = '77';
    let settled: Array<PromiseSettledResult<{ kind: string }>> = [];
    const statements = await statementsOf(async () => {
      settled = await Promise.allSettled(bodies.map((b) => createOffer(app.rt, user, b as OfferInput)));
    });
    expect(statements.filter((s) => /insert into offer \(/.test(s)), 'no batch tried again row by row').to.have.length.at.most(2);
    const seen = settled.map((r) => (r.status === 'fulfilled' ? r.value.kind : (r.reason as { code?: string }).code));
    expect(seen).to.deep.equal([...Array(9).fill('created'), 'processing', 'offer.type-unknown', 'created']);
    const em = app.rt.orm.em.fork();
    expect((await em.findOneOrFail(Offer, { uuid: bodies[8].uuid as string })).observaciones).to.equal('the first body');
    expect(await em.count(OfferTransition, { offer: bodies[8].uuid as string })).to.equal(1);
  });

  it('an offer PostgreSQL refuses fails only its own request: its batch is written again offer by offer', async () => {
    const generator = await makeGenerator(app.rt.orm.em.fork());
    const user = await app.rt.orm.em.fork().findOneOrFail(ApiUser, { id: generator.user.id });
    // a generator that does not exist: its row breaks the foreign key
    const ghost = { ...user, id: 987654, username: 'ghost' } as typeof user;
    const bodies = Array.from({ length: 12 }, () => offerBody());
    const settled = await Promise.allSettled(bodies.map((b, i) => createOffer(app.rt, i === 8 ? ghost : user, b as OfferInput)));
    expect(settled.map((r) => r.status)).to.deep.equal(bodies.map((_, i) => (i === 8 ? 'rejected' : 'fulfilled')));
    expect(String((settled[8] as PromiseRejectedResult).reason)).to.match(/foreign key/);
    const em = app.rt.orm.em.fork();
    expect(await em.count(Offer, { uuid: { $in: bodies.map((b) => b.uuid as string) } })).to.equal(11);
  });
});
