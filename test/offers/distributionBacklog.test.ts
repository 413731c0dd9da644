/**
 * DIST-1 (issue 32): distribution under a backlog. The newest offers go first (the distribute job is LIFO, a batch
 * takes the newest others), and an offer with less than the cutoff of its window left (DISTRIBUTION_CUTOFF_MS, at
 * most a tenth of the window) is not distributed at all: checked on the first plain read and again under the lock,
 * counted in broker_offer_distributions_too_late_total.
 * This app runs no workers: distributions run only when a test calls them.
 */
import { expect } from 'chai';
import nock from 'nock';
import { Worker } from 'bullmq';
import type { EntityManager } from '@mikro-orm/postgresql';
import { loadConfig } from '../../config/index.js';
import { OfferRecipient, WebhookDelivery, type ApiUser, type Offer } from '../../src/db/entities/index.js';
import { DISTRIBUTE_BATCH, distributeOffer, distributionCutoffMs } from '../../src/domain/distribution/distribute.js';
import { distributionsTooLate } from '../../src/metrics/metrics.js';
import { duplicateRedis } from '../../src/queues/redis.js';
import { jobId, jobOptions } from '../../src/queues/registry.js';
import { resetDb } from '../helpers/db.js';
import { BOGOTA, makeApiUser, makeCentral, makeOffer, makeServiceType, makeTechnician } from '../helpers/factories.js';
import { northOf } from '../helpers/geo.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { statementsOf } from '../helpers/statements.js';
import { clearQueues } from '../helpers/queues.js';
import { waitFor } from '../helpers/wait.js';

/** this suite's cutoff: DISTRIBUTION_CUTOFF_MS, below a tenth of its 30-second window */
const CUTOFF_MS = 2000;
const CENTRAL_URL = 'http://central-backlog.test';

/** the counter's value now (the process's registry also holds what earlier suites counted: compare deltas) */
const tooLate = async (): Promise<number> => (await distributionsTooLate.get()).values[0]?.value ?? 0;

describe('distribution under a backlog: newest first, none within the cutoff (DIST-1, issue 32)', () => {
  let app: TestApp;
  let em: EntityManager;
  let generator: ApiUser;

  before(async () => {
    app = await startApp({
      env: {
        QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_backlog`,
        OFFER_RESPONSE_WINDOW_MS: '30000',
        DISTRIBUTION_CUTOFF_MS: String(CUTOFF_MS),
        WEBHOOK_TIMEOUT_MS: '1000',
      },
    });
    await clearQueues(app.rt);
  });
  beforeEach(async () => {
    await resetDb(app.rt.orm);
    em = app.rt.orm.em.fork();
    await makeServiceType(em, { id: 1, type: 'GRUA' });
    generator = (await makeApiUser(em)).user;
    const receiver = (await makeApiUser(em, { urlApi: CENTRAL_URL, apiEndpoint: { oferta: '/ofertas' } })).user;
    const central = await makeCentral(em, { name: 'Central Backlog', apiUser: receiver, coverage: { center: BOGOTA, radiusKm: 40 } });
    await makeTechnician(em, central, { dni: 'BK1', position: northOf(BOGOTA, 1) });
    await makeTechnician(em, central, { dni: 'BK2', position: northOf(BOGOTA, 2) });
  });
  afterEach(() => nock.cleanAll());
  after(async () => {
    await clearQueues(app.rt);
    await app.close();
  });

  /** Moves an offer's deadline to `ms` from the database's now (negative: past). */
  const deadlineIn = (uuid: string, ms: number) =>
    em.getConnection().execute(`update offer set deadline_at = now() + ? * interval '1 millisecond' where uuid = ?`, [ms, uuid]);
  const recipientRows = (uuid: string) => em.fork().count(OfferRecipient, { offer: uuid });
  const pushes = (uuid: string) => em.fork().count(WebhookDelivery, { offer: uuid, kind: 'offer-push' });
  /** whether a distribution recorded the offer (`distributed_at` set) */
  const recorded = async (uuid: string): Promise<boolean> => {
    const [row] = await em.getConnection().execute<Array<{ recorded: boolean }>>(`select distributed_at is not null as recorded from offer where uuid = ?`, [uuid]);
    return row.recorded;
  };
  const tooLateLogs = (uuid: string) => app.logs.filter((l) => l.offerUuid === uuid && /too little of its window left/.test(String(l.msg)));

  it('an offer found too late or closed withdraws the waiting jobs of every other one closed or too late, and no other', async () => {
    const queue = app.rt.queues.get('offer-distribution');
    for (const ownState of ['too late', 'closed'] as const) {
      const offers = await Promise.all([0, 1, 2, 3, 4].map(() => makeOffer(em, generator, { state: 'ABIERTA' })));
      const [own, lateA, lateB, inTime, closed] = offers;
      for (const o of [own, lateA, lateB]) await deadlineIn(o.uuid, CUTOFF_MS - 500);
      await deadlineIn(inTime.uuid, CUTOFF_MS + 20_000);
      await em.getConnection().execute(`update offer set state = 'SIN_RESPUESTA' where uuid = ?`, [closed.uuid]);
      if (ownState === 'closed') await em.getConnection().execute(`update offer set state = 'SIN_RESPUESTA' where uuid = ?`, [own.uuid]);
      for (const o of offers) await app.rt.queues.add('offer-distribution', 'distribute', { offerUuid: o.uuid });
      expect(await distributeOffer(app.rt, own.uuid), ownState).to.equal(null);
      for (const o of [lateA, lateB, closed]) expect(await queue.getJob(jobId('distribute', o.uuid)), `${ownState}: ${o.uuid} withdrawn`).to.equal(undefined);
      expect(await queue.getJob(jobId('distribute', inTime.uuid)), `${ownState}: an offer with its window left keeps its job`).to.not.equal(undefined);
      await clearQueues(app.rt);
    }
  });

  it('the cutoff is DISTRIBUTION_CUTOFF_MS, at most a tenth of the response window', () => {
    expect(distributionCutoffMs({ distributionCutoffMs: 1000, offerResponseWindowMs: 30000 })).to.equal(1000);
    expect(distributionCutoffMs({ distributionCutoffMs: 1000, offerResponseWindowMs: 10000 })).to.equal(1000);
    expect(distributionCutoffMs({ distributionCutoffMs: 1000, offerResponseWindowMs: 9999 })).to.equal(999);
    expect(distributionCutoffMs({ distributionCutoffMs: 1000, offerResponseWindowMs: 1500 })).to.equal(150);
    expect(distributionCutoffMs({ distributionCutoffMs: 5000, offerResponseWindowMs: 30000 })).to.equal(3000);
    expect(distributionCutoffMs({ distributionCutoffMs: 0, offerResponseWindowMs: 30000 })).to.equal(0);
    // the default (1000 ms) with the default 30-second window, and with this suite's settings
    const { DISTRIBUTION_CUTOFF_MS: _unset, ...env } = process.env;
    expect(distributionCutoffMs(loadConfig({ ...env, OFFER_RESPONSE_WINDOW_MS: '30000' }))).to.equal(1000);
    expect(distributionCutoffMs(app.rt.config)).to.equal(CUTOFF_MS);
  });

  it('an offer with less than the cutoff of its window left, or none, is not distributed: nothing recorded, nothing pushed, counted', async () => {
    const push = nock(CENTRAL_URL).put('/ofertas').reply(200, { status: true });
    const almost = await makeOffer(em, generator);
    const past = await makeOffer(em, generator);
    const inTime = await makeOffer(em, generator);
    await deadlineIn(almost.uuid, CUTOFF_MS - 500);
    await deadlineIn(past.uuid, -1000);
    // well over the cutoff left (but far less than the window): still distributed
    await deadlineIn(inTime.uuid, CUTOFF_MS + 3000);

    for (const late of [almost, past]) {
      const before = await tooLate();
      let outcome: unknown;
      // told by the first plain read (no job waits here, so the withdrawal of the others reads nothing more): no
      // transaction, nothing locked
      const sql = await statementsOf(async () => {
        outcome = await distributeOffer(app.rt, late.uuid);
      });
      expect(outcome, late.uuid).to.equal(null);
      expect(sql, sql.join('\n---\n')).to.have.length(1);
      expect(sql.join('\n'), sql.join('\n---\n')).to.not.match(/for update|begin/i);
      expect((await tooLate()) - before, late.uuid).to.equal(1);
      expect(await recipientRows(late.uuid), late.uuid).to.equal(0);
      expect(await recorded(late.uuid), late.uuid).to.equal(false);
      expect(await pushes(late.uuid), late.uuid).to.equal(0);
      expect(tooLateLogs(late.uuid), late.uuid).to.have.length(1);
    }
    expect(push.isDone(), 'no push for an offer within the cutoff').to.equal(false);

    // the same central, technicians and push for an offer with enough window left; the late ones stay out of its batch
    const before = await tooLate();
    expect(await distributeOffer(app.rt, inTime.uuid)).to.deep.equal({ centrals: 1, technicians: 2, published: 2, pushed: 1, pushFailed: 0 });
    expect(await tooLate()).to.equal(before);
    expect(push.isDone()).to.equal(true);
    expect(await recorded(inTime.uuid)).to.equal(true);
    for (const late of [almost, past]) {
      expect(await recipientRows(late.uuid), late.uuid).to.equal(0);
      expect(await recorded(late.uuid), late.uuid).to.equal(false);
    }
  });

  it('checked again under the lock: a deadline moved within the cutoff while the distribution waited for the row', async () => {
    const push = nock(CENTRAL_URL).put('/ofertas').reply(200, { status: true });
    const offer = await makeOffer(em, generator);
    const before = await tooLate();
    const holder = app.rt.orm.em.fork();
    await holder.begin();
    let running: Promise<unknown> | undefined;
    try {
      await holder.execute(`select uuid from offer where uuid = ? for update`, [offer.uuid]);
      // the first read finds enough window left; the batch's lock then waits for the holder
      running = distributeOffer(app.rt, offer.uuid);
      await waitFor(
        async () => {
          const [row] = await em.fork().getConnection().execute<Array<{ n: number }>>(
            `select count(*)::int as n from pg_stat_activity
              where datname = current_database() and wait_event_type = 'Lock' and query ilike '%for update%'`,
          );
          return row.n > 0;
        },
        { what: 'the distribution waiting for the offer row' },
      );
      // the holder leaves the offer with less than the cutoff left (from the distribution's own now(), which began earlier)
      await holder.execute(`update offer set deadline_at = clock_timestamp() + ? * interval '1 millisecond' where uuid = ?`, [CUTOFF_MS / 2, offer.uuid]);
      await holder.commit();
    } catch (err) {
      await holder.rollback();
      throw err;
    }
    expect(await running).to.equal(null);
    expect((await tooLate()) - before).to.equal(1);
    expect(await recipientRows(offer.uuid)).to.equal(0);
    expect(await recorded(offer.uuid)).to.equal(false);
    expect(await pushes(offer.uuid)).to.equal(0);
    expect(push.isDone()).to.equal(false);
    expect(tooLateLogs(offer.uuid)).to.have.length(1);
  });

  it(`a batch records its own offer and the ${DISTRIBUTE_BATCH - 1} newest others, never one within the cutoff`, async () => {
    const push = nock(CENTRAL_URL).put('/ofertas').times(DISTRIBUTE_BATCH).reply(200, { status: true });
    const start = Date.now() - 120_000;
    // 25 open offers not distributed yet, one second apart, oldest first
    const offers: Offer[] = [];
    for (let i = 0; i < 25; i++) {
      const createdAt = new Date(start + i * 1000);
      offers.push(await makeOffer(em, generator, { createdAt, updatedAt: createdAt, deadlineAt: new Date(Date.now() + 30_000) }));
    }
    // newer than every other offer but the own one (the newest): the first two a batch would take, were they not within the cutoff
    const late = await makeOffer(em, generator, { createdAt: new Date(start + 23_500) });
    const closed = await makeOffer(em, generator, { createdAt: new Date(start + 23_600) });
    await deadlineIn(late.uuid, CUTOFF_MS / 2);
    await deadlineIn(closed.uuid, -1000);
    const own = offers[24];

    const before = await tooLate();
    expect(await distributeOffer(app.rt, own.uuid)).to.deep.equal({ centrals: 1, technicians: 2, published: 2, pushed: 1, pushFailed: 0 });
    // the others were only left out, not counted as distributions too late
    expect(await tooLate()).to.equal(before);

    const batch = await em
      .getConnection()
      .execute<Array<{ uuid: string }>>(`select uuid from offer where distributed_at is not null order by created_at desc`);
    const newest = offers.slice(-DISTRIBUTE_BATCH).reverse().map((o) => o.uuid);
    expect(batch.map((r) => r.uuid)).to.deep.equal(newest);
    for (const left of [...offers.slice(0, 25 - DISTRIBUTE_BATCH), late, closed]) {
      expect(await recipientRows(left.uuid), left.uuid).to.equal(0);
      expect(await pushes(left.uuid), left.uuid).to.equal(0);
    }
    for (const uuid of newest) {
      expect(await recipientRows(uuid), uuid).to.equal(1);
      expect(await em.fork().count(WebhookDelivery, { offer: uuid, kind: 'offer-push', state: 'ok' }), uuid).to.equal(1);
    }
    expect(push.isDone()).to.equal(true);
  });

  it('waits on the closing gate (TC-1) before its transaction, only when it has something to send', async () => {
    const push = nock(CENTRAL_URL).put('/ofertas').reply(200, { status: true });
    const asked: string[] = [];
    const transactionsAtGate: number[] = [];
    app.rt.closingGate = {
      pass: async (queue: string) => {
        asked.push(queue);
        transactionsAtGate.push(await recipientRows(open.uuid));
        return 0;
      },
    };
    const open = await makeOffer(em, generator, { state: 'ABIERTA' });
    await deadlineIn(open.uuid, CUTOFF_MS + 20_000);
    const late = await makeOffer(em, generator, { state: 'ABIERTA' });
    await deadlineIn(late.uuid, CUTOFF_MS - 500);
    try {
      expect(await distributeOffer(app.rt, late.uuid)).to.equal(null);
      expect(asked, 'an offer too late sends nothing: no wait').to.deep.equal([]);
      expect(await distributeOffer(app.rt, open.uuid)).to.include({ pushed: 1 });
      expect(asked).to.deep.equal(['offer-distribution']);
      expect(transactionsAtGate, 'asked before anything was recorded').to.deep.equal([0]);
      // already distributed: a re-run sends nothing, no wait
      await distributeOffer(app.rt, open.uuid);
      expect(asked).to.have.length(1);
      expect(push.isDone()).to.equal(true);
    } finally {
      app.rt.closingGate = null;
    }
  });

  it('the distribute job is LIFO: of two waiting, the later is taken first', async () => {
    const settings = { notificationAttempts: 3, notificationBackoffMs: 100, smsAttempts: 2 };
    expect(jobOptions('offer-distribution', 'distribute', { offerUuid: 'u-1' }, settings)).to.include({ jobId: 'distribute-u-1', lifo: true });

    const queue = app.rt.queues.get('offer-distribution');
    await queue.obliterate({ force: true });
    const first = '00000000-0000-4000-8000-0000000000f1';
    const second = '00000000-0000-4000-8000-0000000000f2';
    // added in turn through the producer (its options from the registry); nothing takes them in this app
    await app.rt.queues.add('offer-distribution', 'distribute', { offerUuid: first });
    await app.rt.queues.add('offer-distribution', 'distribute', { offerUuid: second });
    expect(await queue.getWaitingCount()).to.equal(2);

    const token = 'backlog-test';
    const worker = new Worker('offer-distribution', null, {
      connection: duplicateRedis(app.rt.redis, { maxRetriesPerRequest: null }),
      prefix: app.rt.queues.prefixOf('offer-distribution'),
      autorun: false,
    });
    try {
      const taken: string[] = [];
      for (let i = 0; i < 2; i++) {
        const job = await worker.getNextJob(token);
        expect(job, `job ${i + 1}`).to.not.equal(undefined);
        taken.push(String(job.id));
        await job.moveToCompleted('taken by the test', token, false);
      }
      expect(taken).to.deep.equal([jobId('distribute', second), jobId('distribute', first)]);
    } finally {
      await worker.close();
      await worker.disconnect();
      await queue.obliterate({ force: true });
    }
  });
});
