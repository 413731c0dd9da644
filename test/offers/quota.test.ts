/**
 * D24 (issue 29 item 2): each generator has an offer quota per minute,
 * provisioning's `offersPerMinute` (else QUOTA_OFFERS_PER_MIN); beyond it
 * POST /oferta and POST /asignacion-directa (which also creates an offer)
 * answer 429 in their envelope with Retry-After, and another generator is
 * unaffected. Real PostgreSQL and Redis.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { ApiUser, Offer } from '../../src/db/entities/index.js';
import { QUOTA_MESSAGES, offerQuotaKeyPrefix, takeOfferQuota } from '../../src/api/offers/quota.js';
import type { DomainError } from '../../src/domain/errors.js';
import { provision } from '../../src/provisioning/index.js';
import { openApiDocument } from '../../src/api/document/openapi.js';
import { basic, startApp, type TestApp } from '../helpers/harness.js';
import { makeCatalog, makeProvider, type Provider } from '../helpers/ops.js';
import { resetDb } from '../helpers/db.js';
import { clearQueues } from '../helpers/queues.js';
import { offerBody } from '../helpers/offers.js';

describe('offer quota per generator (D24)', () => {
  let app: TestApp;
  let prov: Provider;
  const auth = { limited: basic('gen-quota-3', 'quota-secret-1'), other: basic('gen-quota-other', 'quota-secret-2') };

  before(async () => {
    // a queue prefix of its own: the counters are keyed by API user id, which restarts with each suite's database reset
    app = await startApp({ env: { QUEUE_PREFIX: `quota_${process.pid}_${Date.now().toString(36)}` } });
    await resetDb(app.rt.orm);
    const em = app.rt.orm.em.fork();
    await makeCatalog(em);
    prov = await makeProvider(em, { name: 'Grúas Cuota' });
    const user = (username: string, password: string, offersPerMinute?: number) => ({
      username,
      password,
      status: 'ACTIVO',
      endpoints: ['*'],
      businessName: `Aseguradora ${username}`,
      nit: `9${Math.floor(Math.random() * 1e8)}`,
      ...(offersPerMinute === undefined ? {} : { offersPerMinute }),
    });
    const res = await provision(em, { apiUsers: [user('gen-quota-3', 'quota-secret-1', 3), user('gen-quota-other', 'quota-secret-2', 3)] });
    expect(res.ok, JSON.stringify(res)).to.equal(true);
  });
  after(async () => {
    // offers were created without workers: their jobs must not stay behind
    await clearQueues(app.rt);
    await app.close();
  });

  const offer = (a: string, body = offerBody()) => app.client.post('api/v3/oferta', { headers: { authorization: a }, json: body });
  const direct = (a: string) =>
    app.client.post('api/v3/asignacion-directa', {
      headers: { authorization: a },
      json: { uuid: randomUUID(), tipoServicio: '1', dniPrestador: prov.central.nit, latitudOrigen: 4.65, longitudOrigen: -74.08 },
    });

  it('stores provisioning’s offersPerMinute on the API user (absent: null, the default applies)', async () => {
    const em = app.rt.orm.em.fork();
    expect((await em.findOneOrFail(ApiUser, { username: 'gen-quota-3' })).offersPerMinute).to.equal(3);
    const res = await provision(em, {
      apiUsers: [{ username: 'gen-quota-none', password: 'x-secret-of-12', status: 'ACTIVO', endpoints: ['*'], businessName: 'Sin cuota' }],
    });
    expect(res.ok).to.equal(true);
    expect((await em.fork().findOneOrFail(ApiUser, { username: 'gen-quota-none' })).offersPerMinute).to.equal(null);
    const bad = await provision(em, { apiUsers: [{ username: 'gen-quota-bad', password: 'x', status: 'ACTIVO', endpoints: ['*'], businessName: 'B', offersPerMinute: 0 }] });
    expect(bad.ok).to.equal(false);
  });

  it('answers the 4th offer of a generator with offersPerMinute 3 with 429 and Retry-After; another generator is unaffected', async () => {
    for (let i = 0; i < 3; i++) expect((await offer(auth.limited)).statusCode, `offer ${i + 1}`).to.equal(200);
    const body = offerBody();
    const fourth = await offer(auth.limited, body);
    expect(fourth.statusCode).to.equal(429);
    expect(fourth.body).to.deep.equal({ status: false, msg: QUOTA_MESSAGES.offers });
    const retryAfter = Number(fourth.headers['retry-after']);
    expect(retryAfter).to.be.within(1, 60);
    expect(await app.rt.orm.em.fork().findOne(Offer, { uuid: body.uuid as string })).to.equal(null);
    // the other generator, with the same quota, has its own minute
    expect((await offer(auth.other)).statusCode).to.equal(200);
    // and POST /asignacion-directa, which creates an offer too, counts against the same quota
    const refused = await direct(auth.limited);
    expect(refused.statusCode).to.equal(429);
    expect(refused.body).to.deep.equal({ status: false, msg: QUOTA_MESSAGES.offers });
    expect(Number(refused.headers['retry-after'])).to.be.within(1, 60);
    expect((await direct(auth.other)).statusCode).to.equal(200);
  });

  it('a 429 does not spend an Idempotency-Key: once the minute frees a place, the retry with the key acts (RET-5)', async () => {
    const body = offerBody();
    const refused = await app.client.post('api/v3/oferta', { headers: { authorization: auth.limited, 'idempotency-key': `quota-${body.uuid as string}` }, json: body });
    expect(refused.statusCode).to.equal(429);
    // the minute passes: its counter goes
    await app.rt.redis.del(`${offerQuotaKeyPrefix(app.rt.config.queuePrefix)}:${(await app.rt.orm.em.fork().findOneOrFail(ApiUser, { username: 'gen-quota-3' })).id}`);
    const retry = await app.client.post('api/v3/oferta', { headers: { authorization: auth.limited, 'idempotency-key': `quota-${body.uuid as string}` }, json: body });
    expect(retry.statusCode).to.equal(200);
    expect(retry.headers['idempotent-replayed']).to.equal(undefined);
    expect(await app.rt.orm.em.fork().findOne(Offer, { uuid: body.uuid as string })).to.not.equal(null);
  });

  it('keeps its counts in Redis under the queue prefix, one key per generator', async () => {
    const keys = await app.rt.redis.keys(`${offerQuotaKeyPrefix(app.rt.config.queuePrefix)}*`);
    expect(keys.length).to.equal(2);
  });

  it('concurrent offers of one generator take their places together and exactly: with 3 left of its minute, 3 of 8 at once pass (ISS32-2)', async () => {
    const em = app.rt.orm.em.fork();
    const res = await provision(em, {
      apiUsers: [{ username: 'gen-quota-burst', password: 'quota-secret-9', status: 'ACTIVO', endpoints: ['*'], businessName: 'Ráfaga', nit: '955501', offersPerMinute: 3 }],
    });
    expect(res.ok, JSON.stringify(res)).to.equal(true);
    const bodies = Array.from({ length: 8 }, () => offerBody());
    const answers = await Promise.all(bodies.map((b) => offer(basic('gen-quota-burst', 'quota-secret-9'), b)));
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s === 200), statuses.join(',')).to.have.length(3);
    expect(statuses.filter((s) => s === 429), statuses.join(',')).to.have.length(5);
    for (const a of answers.filter((x) => x.statusCode === 429)) expect(Number(a.headers['retry-after'])).to.be.within(1, 60);
    const stored = await app.rt.orm.em.fork().count(Offer, { uuid: { $in: bodies.map((b) => b.uuid as string) } });
    expect(stored, 'only the offers that took a place are stored').to.equal(3);
  });

  it('eight takes at once with 3 places: the first alone, the other seven in one increment of which two places are left: 3 taken, 5 refused (ISS32-2, ISS32-15)', async () => {
    const em = app.rt.orm.em.fork();
    const res = await provision(em, {
      apiUsers: [{ username: 'gen-quota-batch', password: 'quota-secret-8', status: 'ACTIVO', endpoints: ['*'], businessName: 'Lote', nit: '955502', offersPerMinute: 3 }],
    });
    expect(res.ok, JSON.stringify(res)).to.equal(true);
    const user = await app.rt.orm.em.fork().findOneOrFail(ApiUser, { username: 'gen-quota-batch' });
    const takes = await Promise.allSettled(Array.from({ length: 8 }, () => takeOfferQuota(app.rt, user)));
    expect(takes.map((t) => t.status)).to.deep.equal(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected']);
    for (const t of takes.filter((x): x is PromiseRejectedResult => x.status === 'rejected')) {
      expect((t.reason as DomainError).code).to.equal('quota.offers');
      expect((t.reason as DomainError<'quota.offers'>).facts.retryAfterS).to.be.within(1, 60);
    }
    expect(Number(await app.rt.redis.get(`${offerQuotaKeyPrefix(app.rt.config.queuePrefix)}:${user.id}`)), 'counted as eight increments of one').to.equal(8);
  });

  it('documents the 429 with Retry-After on both operations', () => {
    const doc = openApiDocument();
    for (const [path, method] of [['/api/v3/oferta', 'post'], ['/api/v3/asignacion-directa', 'post']] as const) {
      const r = doc.paths[path][method].responses as Record<string, { headers?: Record<string, unknown>; content?: unknown }>;
      expect(r['429'].headers, path).to.have.property('Retry-After');
      expect(JSON.stringify(r['429'].content)).to.include(QUOTA_MESSAGES.offers);
    }
  });
});
