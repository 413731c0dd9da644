/**
 * Issue 32 (TC-2, TC-3): the process that closes windows and sends the 6.1 does only that. The expiry is background
 * work (its own queue, `offer-expiry`, not a time-critical one) and the reconcile runs only in a process that takes
 * a background queue: a worker of the time-critical queues alone never starts it.
 */
import { expect } from 'chai';
import { startWorkers } from '../../workers/index.js';
import { reconciledKey } from '../../src/domain/outbox/reconcile.js';
import { TIME_CRITICAL_QUEUES, QUEUE_NAMES } from '../../src/queues/registry.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';

describe('the time-critical process does only time-critical work (issue 32)', () => {
  let app: TestApp;

  before(async () => {
    // its own prefix, so the reconcile's marker and lock are this suite's; a short interval, so a pass would come soon
    app = await startApp({ env: { QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_tc`, SWEEP_INTERVAL_MS: '50' } });
  });
  after(async () => {
    await app.rt.redis.del(reconciledKey(app.rt.config.queuePrefix));
    await app.close();
  });

  it('the expiry is not a time-critical queue; every queue is one or the other', () => {
    expect(TIME_CRITICAL_QUEUES).to.deep.equal(['offer-evaluation', 'webhook-dispatch']);
    expect(QUEUE_NAMES).to.include('offer-expiry');
  });

  it('a worker of the time-critical queues alone runs no reconcile; one with a background queue does', async () => {
    const marker = reconciledKey(app.rt.config.queuePrefix);
    const critical = await startWorkers(app.rt, { queues: TIME_CRITICAL_QUEUES });
    expect(app.rt.closingGate, 'no gate where no background work runs').to.equal(null);
    try {
      // a background worker started and stopped on the same prefix shows how soon a pass sets the marker
      const probe = await startWorkers(app.rt, { queues: ['customer-sms'] });
      expect(app.rt.closingGate, 'background work waits on the gate (TC-1)').to.not.equal(null);
      await waitFor(async () => (await app.rt.redis.exists(marker)) === 1, { what: 'the background worker’s reconcile pass' });
      await probe.close();
      await app.rt.redis.del(marker);
      // the time-critical worker is still running: ten of its intervals later, no pass has set the marker again
      const since = Date.now();
      await waitFor(() => Date.now() - since >= 500, { what: 'ten reconcile intervals' });
      expect(await app.rt.redis.exists(marker), 'the time-critical worker ran a reconcile pass').to.equal(0);
    } finally {
      await critical.close();
    }
  });
});
