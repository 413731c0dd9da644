/**
 * Job options live in the registry only (issue 10 item 4, STYLE 2, 5): every
 * producer of a job gets the same id, attempts and backoff, so the sweeper's
 * re-added evaluation cannot drift from the one scheduled at creation.
 */
import { expect } from 'chai';
import type { Job } from 'bullmq';
import { EVALUATION_LEAD_MS, scheduleOfferJobs } from '../../src/domain/offers/create/schedule.js';
import { sweepOutbox } from '../../src/domain/outbox/sweep.js';
import { jobId, jobOptions } from '../../src/queues/registry.js';
import { makeApiUser, makeOffer, makeServiceType } from '../helpers/factories.js';
import { resetDb } from '../helpers/db.js';
import { startApp, type TestApp } from '../helpers/harness.js';

describe('job registry: one home for every job option', () => {
  let app: TestApp;
  before(async () => {
    // Queues of their own and no workers: jobs stay where the producers put them.
    app = await startApp({ env: { QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_registry`, SWEEP_INTERVAL_MS: '0' } });
    await resetDb(app.rt.orm);
    await makeServiceType(app.rt.orm.em.fork(), { id: 1 });
  });
  after(async () => {
    await app.rt.queues.get('offer-evaluation').obliterate({ force: true });
    await app.rt.queues.get('offer-expiry').obliterate({ force: true });
    await app.rt.queues.get('offer-distribution').obliterate({ force: true });
    await app.close();
  });

  const job = async (name: 'evaluate' | 'expire', uuid: string): Promise<Job> => {
    const found = await app.rt.queues.get(name === 'evaluate' ? 'offer-evaluation' : 'offer-expiry').getJob(jobId(name, uuid));
    expect(found, `${name} job of ${uuid}`).to.not.equal(undefined);
    return found as Job;
  };

  it('the evaluation the sweeper re-adds has the attempts and backoff of the one scheduled at creation', async () => {
    const em = app.rt.orm.em.fork();
    const { user } = await makeApiUser(em);
    const scheduled = await makeOffer(em, user);
    await scheduleOfferJobs(app.rt, scheduled);
    // An ABIERTA offer long past its deadline whose evaluation job was lost.
    const past = new Date(Date.UTC(2001, 0, 1));
    const lost = await makeOffer(em, user, { createdAt: past, deadlineAt: past, expiresAt: new Date(past.getTime() + 900000) });
    expect(await app.rt.queues.get('offer-evaluation').getJob(jobId('evaluate', lost.uuid))).to.equal(undefined);

    expect((await sweepOutbox(app.rt)).evaluations).to.be.at.least(1);

    const created = await job('evaluate', scheduled.uuid);
    const swept = await job('evaluate', lost.uuid);
    expect(created.opts.attempts).to.equal(5);
    expect(swept.opts.attempts).to.equal(created.opts.attempts);
    expect(swept.opts.backoff).to.deep.equal(created.opts.backoff);
    expect(swept.opts.backoff).to.deep.equal({ type: 'exponential', delay: 200 });
  });

  it('an evaluation enqueued late after its offer\'s creation is still due at the deadline less its lead (ISS32-11), not after it', async () => {
    const em = app.rt.orm.em.fork();
    const { user } = await makeApiUser(em);
    // committed and enqueued 400 ms after createdAt (a loaded API): the window still ends at deadlineAt
    const createdAt = new Date(Date.now() - 400);
    const offer = await makeOffer(em, user, { createdAt, deadlineAt: new Date(createdAt.getTime() + 30_000) });
    await scheduleOfferJobs(app.rt, offer);
    const evaluation = await job('evaluate', offer.uuid);
    expect(evaluation.timestamp + evaluation.opts.delay!).to.be.closeTo(offer.deadlineAt!.getTime() - EVALUATION_LEAD_MS, 50);
  });

  it('options come from the table: ids from the domain id, one try for the acceptance, the configured retries for notifications', () => {
    const settings = { notificationAttempts: 7, notificationBackoffMs: 1234, smsAttempts: 3 };
    expect(jobOptions('offer-expiry', 'expire', { offerUuid: 'u-1' }, settings)).to.include({ jobId: 'expire-u-1', attempts: 5 });
    expect(jobOptions('webhook-dispatch', 'deliver', { deliveryId: 'd:1' }, settings)).to.include({ jobId: 'deliver-d_1', attempts: 1 });
    expect(jobOptions('customer-sms', 'send', { smsId: 's-1' }, settings)).to.deep.include({ jobId: 'sms-s-1', attempts: 3, backoff: { type: 'exponential', delay: 1000 } });
    const notify = jobOptions('state-notification', 'notify', { deliveryId: 'd-2' }, settings);
    expect(notify).to.include({ jobId: 'notify-d-2', attempts: 7 });
    expect(notify.backoff).to.deep.equal({ type: 'exponential', delay: 1234 });
  });

  it('a producer cannot give a job another id than the registry’s', async () => {
    const err = await app.rt.queues
      .add('offer-evaluation', 'evaluate', { offerUuid: 'x-1' }, { jobId: 'something-else' })
      .then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(Error);
    expect((err as Error).message).to.contain("is not the registry's evaluate-x-1");
  });
});
