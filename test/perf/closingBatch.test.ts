/**
 * Issue 12.3: windows close in batches. One evaluation closes every ABIERTA
 * offer past its deadline that no one else holds, in the same statements for
 * two windows as for twelve (counted at the pg driver, not timed); a window
 * another transaction holds is left to it, while the job's own offer is
 * waited for; each closed window's 6.1 send is enqueued once; the other
 * windows' evaluation jobs are withdrawn.
 */
import { expect } from 'chai';
import pg from 'pg';
import { Offer, OfferTransition, WebhookDelivery } from '../../src/db/entities/index.js';
import { lockDueWindows } from '../../src/domain/offers/selection/closing.js';
import { evaluateOffer } from '../../src/domain/offers/selection/evaluation.js';
import { jobId } from '../../src/queues/registry.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { GENERATOR_URL, answeredOffer, closingParties, makeDue, type Generator, type Responder } from '../helpers/offers.js';
import { statementsOf } from '../helpers/statements.js';
import { waitFor } from '../helpers/wait.js';

describe('closing windows in batches (issue 12.3)', () => {
  let app: TestApp;
  let gen: Generator;
  let fast: Responder;
  let slow: Responder;
  const fork = () => app.rt.orm.em.fork();

  /** Offers past their deadline (or not, `due: false`), each answered by both responders or by none. */
  async function offers(answered: boolean[], due = true): Promise<string[]> {
    const uuids: string[] = [];
    for (const answer of answered) uuids.push(await answeredOffer(app, gen, answer ? [[fast, 8], [slow, 15]] : []));
    if (due) await makeDue(app, uuids);
    return uuids;
  }

  const stateOf = async (uuid: string) => (await fork().findOneOrFail(Offer, { uuid })).state;

  before(async () => {
    app = await startApp();
    // the losing central has a novelty endpoint: its "not assigned" notice is planned in the batch too (D12)
    ({ gen, fast, slow } = await closingParties(app));
  });
  after(async () => app.close());

  it('one evaluation closes every window past its deadline, with the same statements for 2 windows as for 12', async () => {
    const small = await offers([true, false]);
    const smallStatements = await statementsOf(() => evaluateOffer(app.rt, small[0]));
    expect(await Promise.all(small.map(stateOf))).to.deep.equal(['ACEPTADA', 'SIN_RESPUESTA']);

    const big = await offers([true, true, true, false, true, true, false, true, true, false, true, false]);
    const [notDue] = await offers([true], false);
    let outcome = '';
    const bigStatements = await statementsOf(async () => {
      outcome = await evaluateOffer(app.rt, big[3]);
    });
    expect(outcome).to.equal('no-response');
    expect(bigStatements.length, bigStatements.join('\n---\n')).to.equal(smallStatements.length);
    expect(bigStatements.length, 'a read, begin, the locks, the responses, the writes (offers, audit rows and deliveries), commit').to.be.at.most(6);

    const answered = big.filter((_, i) => ![3, 6, 9, 11].includes(i));
    for (const uuid of answered) {
      const offer = await fork().findOneOrFail(Offer, { uuid });
      expect(offer.state).to.equal('ACEPTADA');
      expect(offer.assignedCentral!.id, 'the faster arrival wins (D2)').to.equal(fast.central.id);
      expect(offer.ranking).to.have.length(2);
      const deliveries = await fork().find(WebhookDelivery, { offer: uuid }, { orderBy: { kind: 'asc' } });
      expect(deliveries.map((d) => [d.kind, d.url])).to.deep.equal([
        ['acceptance', `${GENERATOR_URL}/api/v1/respuesta`],
        ['novedad', `${GENERATOR_URL}/novedad`],
      ]);
      const job = await app.rt.queues.get('webhook-dispatch').getJob(jobId('deliver', deliveries[0].id));
      expect(job, 'its 6.1 send is enqueued').to.not.equal(undefined);
    }
    for (const uuid of big.filter((u) => !answered.includes(u))) {
      const offer = await fork().findOneOrFail(Offer, { uuid });
      expect(offer.state).to.equal('SIN_RESPUESTA');
      expect((await fork().find(WebhookDelivery, { offer: uuid })).map((d) => d.kind)).to.deep.equal(['state']);
      // its expiry, due OFFER_MAX_OPEN_MS after creation, is enqueued now that the window closed unanswered
      const expire = await app.rt.queues.get('offer-expiry').getJob(jobId('expire', uuid));
      expect(expire?.data).to.deep.equal({ offerUuid: uuid });
      expect(expire!.timestamp + expire!.opts.delay!).to.be.closeTo(offer.expiresAt!.getTime(), 2000);
    }
    for (const uuid of big) {
      expect(await fork().count(OfferTransition, { offer: uuid, fromState: 'ABIERTA' }), 'one move out of ABIERTA').to.equal(1);
    }
    expect(await stateOf(notDue), 'a window still open is not closed early').to.equal('ABIERTA');
    // the other windows' own jobs, when they come, find them closed and do nothing, in one read (state and unsent 6.1)
    let late = '';
    const lateStatements = await statementsOf(async () => {
      late = await evaluateOffer(app.rt, big[0]);
    });
    expect(late).to.equal('nothing');
    expect(lateStatements, lateStatements.join('\n---\n')).to.have.length(1);
    expect(await fork().count(OfferTransition, { offer: big[0], fromState: 'ABIERTA' })).to.equal(1);
  });

  it('the live events of a batch go out in two round trips, each offer\'s in its order', async () => {
    const uuids = await offers([true, false, true, false, true]);
    const events = app.rt.events;
    const rounds: string[][] = [];
    const spy = {
      publish: async (...args: Parameters<typeof events.publish>) => {
        rounds.push([`${(args[0] as { offerUuid?: string }).offerUuid} ${args[1]}`]);
        return events.publish(...args);
      },
      publishMany: async (messages: Parameters<typeof events.publishMany>[0]) => {
        rounds.push(messages.map((m) => `${(m.audience as { offerUuid?: string }).offerUuid} ${m.event}`));
        return events.publishMany(messages);
      },
    };
    app.rt.events = spy;
    try {
      expect(await evaluateOffer(app.rt, uuids[0])).to.equal('selected');
    } finally {
      app.rt.events = events;
    }
    expect(rounds, 'offer.state of every move, then the accepted and closed events').to.have.length(2);
    // and the operators' one `offer.states` for the whole batch (D23), in the same round trip
    expect(rounds[0]).to.deep.equal([...uuids.map((u) => `${u} offer.state`), 'undefined offer.states']);
    expect(rounds[1]).to.deep.equal(
      uuids.flatMap((u, i) => (i % 2 === 0 ? [`${u} offer.accepted`, `${u} offer.closed`] : [`${u} offer.closed`])),
    );
    // the unanswered windows' state notifications (D12) were enqueued all the same
    const notices = await fork().find(WebhookDelivery, { offer: { $in: uuids.filter((_, i) => i % 2 === 1) }, kind: 'state' });
    expect(notices).to.have.length(2);
    for (const d of notices) expect(await app.rt.queues.get('state-notification').getJob(jobId('notify', d.id)), d.id).to.not.equal(undefined);
  });

  it('withdraws the evaluation jobs of the other windows it closed', async () => {
    const uuids = await offers([true, false, true]);
    const [notDue] = await offers([true], false);
    const queue = app.rt.queues.get('offer-evaluation');
    for (const offerUuid of [...uuids, notDue]) await app.rt.queues.add('offer-evaluation', 'evaluate', { offerUuid }, { delay: 60_000 });
    expect(await evaluateOffer(app.rt, uuids[1])).to.equal('no-response');
    expect(await queue.getJob(jobId('evaluate', uuids[1])), 'the running job is its own').to.not.equal(undefined);
    for (const u of [uuids[0], uuids[2]]) expect(await queue.getJob(jobId('evaluate', u)), u).to.equal(undefined);
    expect(await queue.getJob(jobId('evaluate', notDue)), 'a window still open keeps its job').to.not.equal(undefined);
  });

  it('a window another transaction holds is left to it; the job\'s own offer is waited for', async () => {
    const [mine, held] = await offers([true, true]);
    const holder = new pg.Client({ connectionString: app.rt.config.databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from offer where uuid = $1 for update', [held]);
      expect(await evaluateOffer(app.rt, mine)).to.equal('selected');
      expect(await stateOf(held), 'skipped, not waited for').to.equal('ABIERTA');

      const own = evaluateOffer(app.rt, held);
      await waitFor(async () => {
        const { rows } = await holder.query(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
        );
        return rows[0].n > 0;
      });
      await holder.query('commit');
      expect(await own).to.equal('selected');
    } finally {
      await holder.end();
    }
    expect(await stateOf(held)).to.equal('ACEPTADA');
  });

  it('a closing run\'s batch reads when the next window is due in the statement that locks its own (ISS32-13)', async () => {
    const due = await offers([false, false]);
    await offers([false], false);
    const firstOpenAfter = async (at: Date) =>
      (await fork().find(Offer, { state: 'ABIERTA', deadlineAt: { $gt: at } }, { orderBy: { deadlineAt: 'asc' }, limit: 1 }))[0]?.deadlineAt ?? null;
    const lock = async (at: Date) => {
      let locked!: Awaited<ReturnType<typeof lockDueWindows>>;
      const statements = await statementsOf(() => fork().transactional(async (em) => void (locked = await lockDueWindows(em, null, 100, at))));
      return { ...locked, statements: statements.filter((q) => !/^(begin|commit)/i.test(q.trim())) };
    };

    const now = new Date();
    const batch = await lock(now);
    expect(batch.windows.map((w) => w.uuid)).to.include.members(due);
    expect(batch.next, 'the first open deadline after the batch\'s start').to.be.instanceOf(Date);
    expect(batch.next!.getTime()).to.equal((await firstOpenAfter(now))!.getTime());
    expect(batch.statements, batch.statements.join('\n---\n')).to.have.length(1);

    // nothing due yet: no windows, and still the next deadline
    const early = await lock(new Date(0));
    expect(early.windows).to.deep.equal([]);
    expect(early.next!.getTime()).to.equal((await firstOpenAfter(new Date(0)))!.getTime());
    // none open after it: null
    const last = (await fork().find(Offer, { state: 'ABIERTA' }, { orderBy: { deadlineAt: 'desc' }, limit: 1 }))[0];
    expect((await lock(last.deadlineAt!)).next).to.equal(null);
    // the job's own batch does not read it (the job asks when it goes on as a run)
    const own = await fork().transactional((em) => lockDueWindows(em, due[0], 0, new Date()));
    expect(own.windows.map((w) => w.uuid)).to.deep.equal([due[0]]);
    expect(own.next).to.equal(undefined);
  });
});
