/**
 * Issue 30 item 2 (D21): Redis lost everything (restarted empty). The reconcile re-creates from PostgreSQL what
 * must be queued: the repeatable schedule, the distribution of an offer not yet distributed, the evaluation of every
 * ABIERTA offer at its deadline (at once when past), a pending acceptance notification; it sees the loss by its
 * marker's absence, so a periodic pass finds it without a restart, and a second pass adds nothing.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { reconcile, reconciledKey, startReconcile } from '../../src/domain/outbox/reconcile.js';
import { EVALUATION_LEAD_MS } from '../../src/domain/offers/create/schedule.js';
import { PRUNE_SCHEDULER_ID, SWEEP_SCHEDULER_ID } from '../../src/queues/schedules.js';
import { jobId } from '../../src/queues/registry.js';
import { WebhookDelivery } from '../../src/db/entities/index.js';
import { makeOffer, makeServiceType } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { makeGenerator } from '../helpers/offers.js';
import { waitFor } from '../helpers/wait.js';

/** Every key of the app's prefix deleted: what a Redis restarted without persistence holds. */
async function loseRedis(app: TestApp): Promise<void> {
  const prefix = app.rt.config.queuePrefix;
  let cursor = '0';
  do {
    const [next, keys] = await app.rt.redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await app.rt.redis.del(...keys);
  } while (cursor !== '0');
}

describe('the reconcile: what Redis lost is re-created from PostgreSQL (issue 30, D21)', function () {
  this.timeout(30000);
  let app: TestApp;

  before(async () => {
    // its own queue prefix and no workers: the jobs stay where the reconcile put them
    app = await startApp({ env: { QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_reconcile` } });
    await makeServiceType(app.rt.orm.em.fork(), { id: 1 }).catch(() => undefined);
  });
  after(async () => {
    await loseRedis(app);
    await app.close();
  });

  it('after Redis restarted empty: schedules, distributions, evaluations at their deadline, pending 6.1 are back; once', async () => {
    const gen = await makeGenerator(app.rt.orm.em.fork());
    const em = app.rt.orm.em.fork();
    const now = Date.now();
    const open = await makeOffer(em, gen.user, { deadlineAt: new Date(now + 20_000) });
    const overdue = await makeOffer(em, gen.user, { deadlineAt: new Date(now - 3_000), distributedAt: new Date(now - 20_000) });
    const accepted = await makeOffer(em, gen.user, { state: 'ACEPTADA', distributedAt: new Date(now - 20_000) });
    const delivery = em.create(WebhookDelivery, {
      id: randomUUID(),
      offer: accepted,
      kind: 'acceptance',
      eventId: randomUUID(),
      url: 'http://127.0.0.1:9/respuesta',
      method: 'PUT',
      requestHeaders: {},
      requestBody: {},
      receiver: gen.user.id,
      state: 'pending',
      attempts: 0,
      createdAt: new Date(now - 10_000),
    });
    await em.flush();

    await loseRedis(app);
    const first = await reconcile(app.rt);
    expect(first.full, 'the marker is gone: a full pass').to.equal(true);
    expect(first.complete).to.equal(true);

    const evaluation = app.rt.queues.get('offer-evaluation');
    const evaluateOpen = await evaluation.getJob(jobId('evaluate', open.uuid));
    expect(evaluateOpen?.data).to.deep.equal({ offerUuid: open.uuid });
    // due at its deadline less its lead (ISS32-11), not now
    expect(evaluateOpen!.timestamp + evaluateOpen!.opts.delay!).to.be.closeTo(open.deadlineAt!.getTime() - EVALUATION_LEAD_MS, 1000);
    const evaluateOverdue = await evaluation.getJob(jobId('evaluate', overdue.uuid));
    expect(evaluateOverdue?.opts.delay ?? 0, 'past its deadline: at once').to.equal(0);
    expect((await app.rt.queues.get('offer-distribution').getJob(jobId('distribute', open.uuid)))?.data).to.deep.equal({ offerUuid: open.uuid });
    expect(await app.rt.queues.get('offer-distribution').getJob(jobId('distribute', overdue.uuid)), 'distributed already').to.equal(undefined);
    expect((await app.rt.queues.get('webhook-dispatch').getJob(jobId('deliver', delivery.id)))?.data).to.deep.equal({ deliveryId: delivery.id });
    const notifications = app.rt.queues.get('state-notification');
    expect((await notifications.getJobScheduler(PRUNE_SCHEDULER_ID))?.name).to.equal('prune');
    expect(await notifications.getJobScheduler(SWEEP_SCHEDULER_ID), 'the sweep is the reconcile’s, not a repeatable job').to.equal(undefined);
    expect(await app.rt.redis.exists(reconciledKey(app.rt.config.queuePrefix))).to.equal(1);

    const second = await reconcile(app.rt);
    expect(second.full, 'the marker is there: a periodic pass').to.equal(false);
    expect(second).to.deep.include({ distributions: 0, acceptances: 0, evaluations: 0 });
  });

  it('runs by itself every SWEEP_INTERVAL_MS: a loss between two passes is found without a restart', async () => {
    const quick = await startApp({ env: { QUEUE_PREFIX: app.rt.config.queuePrefix, SWEEP_INTERVAL_MS: '200' } });
    const passes: boolean[] = [];
    const reconciler = startReconcile(quick.rt, { onPass: (r) => passes.push(r.full) });
    try {
      await waitFor(() => passes.length >= 2, 10000, 'two passes');
      const gen = await makeGenerator(quick.rt.orm.em.fork());
      const offer = await makeOffer(quick.rt.orm.em.fork(), gen.user, { deadlineAt: new Date(Date.now() + 20_000) });
      const full = passes.filter(Boolean).length;
      await loseRedis(quick);
      await waitFor(() => passes.filter(Boolean).length > full, 10000, 'a full pass after the loss');
      expect((await quick.rt.queues.get('offer-evaluation').getJob(jobId('evaluate', offer.uuid)))?.data).to.deep.equal({ offerUuid: offer.uuid });
      expect((await quick.rt.queues.get('state-notification').getJobScheduler(PRUNE_SCHEDULER_ID))?.name).to.equal('prune');
    } finally {
      await reconciler.stop();
      await quick.close();
    }
  });

  it("runs a full pass as soon as the queue producers' connection is back, though the runtime's never left", async () => {
    // an interval far beyond the test: a pass after the start's can only come from a reconnection
    const slow = await startApp({ env: { QUEUE_PREFIX: app.rt.config.queuePrefix, SWEEP_INTERVAL_MS: '600000' } });
    const passes: boolean[] = [];
    const reconciler = startReconcile(slow.rt, { onPass: (r) => passes.push(r.full) });
    try {
      await waitFor(() => passes.length >= 1, 10000, "the start's pass");
      expect(slow.rt.queues.connection).to.not.equal(slow.rt.redis);
      const reconnected = new Promise((resolve) => slow.rt.queues.connection.once('ready', resolve));
      slow.rt.queues.connection.disconnect(true);
      await reconnected;
      await waitFor(() => passes.length >= 2, 5000, "a pass after the producers' reconnection");
      expect(passes[1]).to.equal(true);
    } finally {
      await reconciler.stop();
      await slow.close();
    }
  });
});
