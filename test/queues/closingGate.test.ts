/**
 * Issue 32 (TC-1): background jobs yield to the closing of windows. While an open window is overdue by more than
 * CLOSING_YIELD_LATE_MS, a background job waits before it starts (at most CLOSING_YIELD_MAX_MS); the time-critical
 * queues never wait; a window overdue for longer than STUCK_MS (a lost job, not a busy closing) holds nothing.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { ClosingGate, STUCK_MS, backgroundYields } from '../../src/queues/closingGate.js';
import { handlers } from '../../workers/processors/index.js';
import { makeApiUser, makeOffer, makeServiceType } from '../helpers/factories.js';
import { startCleanApp, type TestApp } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';

describe('background work yields to the closing of windows (issue 32, TC-1)', () => {
  let app: TestApp;
  const ran: Record<string, number> = {};
  let closeAt = 0;

  before(async () => {
    app = await startCleanApp({
      workers: {
        queues: ['offer-evaluation', 'customer-sms'],
        handlers: {
          ...handlers,
          // what each job sees: when it started
          'offer-evaluation': { evaluate: async (_rt, { offerUuid }) => void (ran[offerUuid] = Date.now()) },
          'customer-sms': { send: async (_rt, { smsId }) => void (ran[smsId] = Date.now()) },
        },
      },
      env: { CLOSING_YIELD_LATE_MS: '20', CLOSING_YIELD_MAX_MS: '20000' },
    });
    await makeServiceType(app.rt.orm.em.fork(), { id: 1 });
  });
  after(async () => app.close());

  /** an ABIERTA offer whose deadline passed `ms` ago (no evaluation job: nothing closes it but the test) */
  const overdue = async (ms: number) => {
    const em = app.rt.orm.em.fork();
    const { user } = await makeApiUser(em);
    return makeOffer(em, user, { state: 'ABIERTA', deadlineAt: new Date(Date.now() - ms) });
  };
  const close = (uuid: string) => app.rt.orm.em.fork().getConnection().execute(`update offer set state = 'SIN_RESPUESTA' where uuid = ?`, [uuid]);
  const gate = (lateMs: number, maxWaitMs: number) => new ClosingGate(() => app.rt.orm.em.fork(), { lateMs, maxWaitMs });

  it('a background job does not start while a window is overdue; a time-critical one does; it starts once the window closes', async () => {
    const offer = await overdue(1000);
    const before = (await backgroundYields.get()).values.find((v) => v.labels.queue === 'customer-sms')?.value ?? 0;
    const sms = randomUUID();
    const evaluation = randomUUID();
    await app.rt.queues.add('customer-sms', 'send', { smsId: sms });
    // the SMS job is taken (active) but held at the gate
    await waitFor(async () => (await app.rt.queues.get('customer-sms').getActiveCount()) === 1, { what: 'the SMS job taken' });
    // the closing's own queue is not held
    await app.rt.queues.add('offer-evaluation', 'evaluate', { offerUuid: evaluation });
    await waitFor(() => ran[evaluation], { what: 'the evaluation job run' });
    expect(ran[sms], 'the background job started while a window was overdue').to.equal(undefined);
    closeAt = Date.now();
    await close(offer.uuid);
    await waitFor(() => ran[sms], { what: 'the SMS job run once the window closed' });
    expect(ran[sms]).to.be.at.least(closeAt);
    const after = (await backgroundYields.get()).values.find((v) => v.labels.queue === 'customer-sms')?.value ?? 0;
    expect(after - before, 'the wait is counted (broker_background_yield_seconds_total)').to.be.greaterThan(0);
  });

  it('passes at once when no window is overdue, or only by less than the lateness allowed', async () => {
    expect(await gate(20, 60_000).pass('test')).to.equal(0);
    const offer = await overdue(-60_000); // due in a minute: not overdue
    expect(await gate(20, 60_000).pass('test')).to.equal(0);
    await close(offer.uuid);
    const recent = await overdue(0);
    // overdue by a few ms at most when read: under a lateness allowed of 10 s
    expect(await gate(10_000, 60_000).pass('test')).to.equal(0);
    await close(recent.uuid);
  });

  it('a window overdue longer than STUCK_MS (a lost job) holds nothing', async () => {
    const stuck = await overdue(STUCK_MS + 10_000);
    expect(await gate(20, 60_000).pass('test')).to.equal(0);
    await close(stuck.uuid);
  });

  it('waits at most CLOSING_YIELD_MAX_MS: background work is delayed, never stopped', async () => {
    const offer = await overdue(1000);
    const held = gate(20, 150);
    const waited = await held.pass('test');
    expect(waited).to.be.at.least(150);
    // a wait that ran out opens the gate for as long again: the background still gets half the time
    expect(await held.pass('test'), 'right after a wait ran out').to.equal(0);
    expect(await gate(20, 0).pass('test'), 'CLOSING_YIELD_MAX_MS=0: never waits').to.equal(0);
    await close(offer.uuid);
  });
});
