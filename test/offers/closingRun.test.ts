/**
 * ISS32-4 (issue 32): an evaluation job stays on for the windows due right after its own and closes each batch at
 * its deadline, never before it; their own jobs are withdrawn. Without runs (CLOSING_LINGER_MS=0) each window's own
 * job closes it. A run waiting for its next deadline ends at once when the process stops, and ends on a batch's
 * error, leaving the windows to their own jobs. A job run before its window's deadline (promoted by hand) goes back
 * to the delayed set until then.
 */
import { expect } from 'chai';
import { OfferTransition } from '../../src/db/entities/index.js';
import { ClosingRun, type ClosingRunSteps } from '../../src/domain/offers/selection/closingRun.js';
import { scheduleManyOfferJobs } from '../../src/domain/offers/create/schedule.js';
import { jobId } from '../../src/queues/registry.js';
import { startWorkers } from '../../workers/index.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { answeredOffer, closingParties, type Generator, type Responder } from '../helpers/offers.js';
import { waitFor } from '../helpers/wait.js';

describe('closing runs (issue 32, ISS32-4)', () => {
  describe('the run', () => {
    /** Steps over fixed deadlines: `next` gives the first after `after`, `close` records when it was asked. */
    function steps(deadlines: number[], onClose: (at: Date) => Promise<number> = async () => 1) {
      const closes: number[] = [];
      const s: ClosingRunSteps = {
        next: async (after) => {
          const d = deadlines.find((x) => x > after.getTime());
          return d === undefined ? null : new Date(d);
        },
        close: async (at) => {
          closes.push(at.getTime());
          return { closed: await onClose(at) };
        },
      };
      return { s, closes };
    }

    it('closes each batch at its deadline, never before, and ends when the next is beyond the linger', async () => {
      const t = Date.now();
      const deadlines = [t + 40, t + 80, t + 120, t + 2000];
      const { s, closes } = steps(deadlines);
      const run = new ClosingRun({ lingerMs: 100, maxRunMs: 5000 });
      expect(await run.run(s, new Date(t))).to.equal(3);
      expect(closes).to.have.length(3);
      closes.forEach((at, i) => expect(at, `batch ${i} not before its deadline`).to.be.at.least(deadlines[i]));
    });

    it('never starts a batch before its deadline by its own clock, even when a timer ends before that clock reaches it', async () => {
      // a clock at half the timers' speed: every timer ends before this clock reads the deadline it was set for;
      // in whole milliseconds, as Date.now() and the deadlines read from PostgreSQL are
      const start = Date.now();
      const slow = () => start + Math.floor((Date.now() - start) / 2);
      const t = slow();
      const deadlines = [t + 20, t + 40];
      const { s, closes } = steps(deadlines);
      expect(await new ClosingRun({ lingerMs: 100, maxRunMs: 5000 }, slow).run(s, new Date(t))).to.equal(2);
      expect(closes).to.have.length(2);
      closes.forEach((at, i) => expect(at, `batch ${i} not before its deadline`).to.be.at.least(deadlines[i]));
    });

    it('a deadline already past is closed at once, and the next is sought after that batch', async () => {
      const t = Date.now();
      const { s, closes } = steps([t - 50, t - 10]);
      expect(await new ClosingRun({ lingerMs: 100, maxRunMs: 5000 }).run(s, new Date(t - 100))).to.equal(1);
      // both past deadlines are due at the first batch's start: one batch took them, none was sought again
      expect(closes).to.have.length(1);
    });

    it('a batch that read the next deadline with its windows spares the run its own read (ISS32-13)', async () => {
      const t = Date.now();
      const deadlines = [t + 20, t + 40, t + 60];
      const asked: number[] = [];
      const closes: number[] = [];
      const s: ClosingRunSteps = {
        next: async (after) => {
          asked.push(after.getTime());
          return new Date(deadlines[0]);
        },
        close: async (at) => {
          closes.push(at.getTime());
          // as the statement reads it: the first deadline after the batch's start, null past the last
          const next = deadlines.find((d) => d > at.getTime());
          return { closed: 1, next: next === undefined ? null : new Date(next) };
        },
      };
      expect(await new ClosingRun({ lingerMs: 100, maxRunMs: 5000 }).run(s, new Date(t))).to.equal(3);
      expect(asked, 'only before the first batch').to.deep.equal([t]);
      closes.forEach((at, i) => expect(at, `batch ${i} not before its deadline`).to.be.at.least(deadlines[i]));
    });

    it('stopping wakes a run waiting for its next deadline: it ends without closing', async () => {
      const t = Date.now();
      const { s, closes } = steps([t + 60_000]);
      const run = new ClosingRun({ lingerMs: 120_000, maxRunMs: 300_000 });
      const running = run.run(s, new Date(t));
      run.stop();
      expect(await running).to.equal(0);
      expect(closes).to.deep.equal([]);
      // and a stopped run starts no more
      expect(await run.run(steps([Date.now() - 1]).s, new Date(0))).to.equal(0);
    });

    it('ends on a batch’s error, which it rejects with; after maxRunMs it ends', async () => {
      const t = Date.now();
      const failing = steps([t - 5, t + 5, t + 10], async () => {
        throw new Error('PostgreSQL away');
      });
      await new ClosingRun({ lingerMs: 100, maxRunMs: 5000 }).run(failing.s, new Date(t - 10)).then(
        () => expect.fail('the run should reject'),
        (err: Error) => expect(err.message).to.equal('PostgreSQL away'),
      );
      expect(failing.closes, 'no batch after the failed one').to.have.length(1);
      const endless = { next: async () => new Date(Date.now() - 1), close: async () => ({ closed: 1 }) };
      const ran = await new ClosingRun({ lingerMs: 100, maxRunMs: 30 }).run(endless, new Date());
      expect(ran).to.be.at.least(1);
    });

    it('past maxRunMs it hands over only in a gap of handoffMs before the next deadline (ISS32-12), or at hardMaxRunMs', async () => {
      const t = Date.now();
      // windows 10 ms apart until t + 60, then one 400 ms later (within the linger): the run, past maxRunMs after the
      // second, closes the dense ones and hands over in the gap
      const deadlines = [t + 10, t + 20, t + 30, t + 40, t + 50, t + 60, t + 460];
      const { s, closes } = steps(deadlines);
      expect(await new ClosingRun({ lingerMs: 1000, maxRunMs: 15, handoffMs: 100, hardMaxRunMs: 5000 }).run(s, new Date(t))).to.equal(6);
      expect(closes).to.have.length(6);
      // windows due back to back for ever: it ends at hardMaxRunMs
      const endless = { next: async () => new Date(Date.now() - 1), close: async () => ({ closed: 1 }) };
      const started = Date.now();
      expect(await new ClosingRun({ lingerMs: 100, maxRunMs: 10, handoffMs: 100, hardMaxRunMs: 60 }).run(endless, new Date())).to.be.at.least(1);
      expect(Date.now() - started).to.be.at.least(60);
    });
  });

  describe('in the evaluation worker', () => {
    let app: TestApp;
    let gen: Generator;
    let fast: Responder;
    const fork = () => app.rt.orm.em.fork();

    /** Answered offers whose windows close `gapMs` apart from `firstMs` from now, with their evaluation jobs. */
    async function staggered(n: number, firstMs: number, gapMs: number): Promise<Array<{ uuid: string; deadlineAt: Date }>> {
      const offers: Array<{ uuid: string; deadlineAt: Date }> = [];
      for (let i = 0; i < n; i++) offers.push({ uuid: await answeredOffer(app, gen, [[fast, 8]]), deadlineAt: new Date(0) });
      const base = Date.now() + firstMs;
      offers.forEach((o, i) => (o.deadlineAt = new Date(base + i * gapMs)));
      for (const o of offers) await fork().getConnection().execute(`update offer set deadline_at = ? where uuid = ?`, [o.deadlineAt, o.uuid]);
      await scheduleManyOfferJobs(app.rt, offers);
      return offers;
    }

    /** When each offer left ABIERTA, once all have. */
    async function closedAt(offers: ReadonlyArray<{ uuid: string }>): Promise<OfferTransition[]> {
      return waitFor(
        async () => {
          const moves = await fork().find(OfferTransition, { offer: { $in: offers.map((o) => o.uuid) }, fromState: 'ABIERTA' });
          return moves.length === offers.length ? moves : null;
        },
        { what: 'every window closed' },
      );
    }

    async function withWorker<T>(lingerMs: string, fn: () => Promise<T>): Promise<T> {
      app = await startApp({ env: { QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_run${lingerMs}`, CLOSING_LINGER_MS: lingerMs, SWEEP_INTERVAL_MS: '0' } });
      ({ gen, fast } = await closingParties(app));
      await app.rt.queues.get('offer-evaluation').obliterate({ force: true });
      // the 6.1 is enqueued, not sent (no process here takes webhook-dispatch)
      const workers = await startWorkers(app.rt, { queues: ['offer-evaluation'] });
      try {
        return await fn();
      } finally {
        await workers.close();
        await app.close();
      }
    }

    it('the first window’s job closes the next ones at their deadlines; their own jobs are withdrawn', async () => {
      await withWorker('250', async () => {
        const offers = await staggered(4, 400, 60);
        const moves = await closedAt(offers);
        for (const o of offers) {
          const move = moves.find((m) => m.offer.uuid === o.uuid)!;
          expect(move.toState).to.equal('ACEPTADA');
          expect(move.at.getTime(), 'not before its deadline').to.be.at.least(o.deadlineAt.getTime());
        }
        const queue = app.rt.queues.get('offer-evaluation');
        await waitFor(async () => (await queue.getJobCounts('active')).active === 0, { what: 'the run ended' });
        const jobs = await Promise.all(offers.map((o) => queue.getJob(jobId('evaluate', o.uuid))));
        expect(jobs[0]?.finishedOn, 'the first window’s job ran').to.be.a('number');
        expect(jobs.slice(1), 'the others were closed by its run and their jobs withdrawn').to.deep.equal([undefined, undefined, undefined]);
        expect(await fork().count(OfferTransition, { offer: { $in: offers.map((o) => o.uuid) }, fromState: 'ABIERTA' }), 'one move each').to.equal(4);
      });
    });

    it('without runs (CLOSING_LINGER_MS=0) each window’s own job closes it', async () => {
      await withWorker('0', async () => {
        expect(app.rt.closingRun).to.equal(null);
        const offers = await staggered(3, 300, 60);
        await closedAt(offers);
        const queue = app.rt.queues.get('offer-evaluation');
        await waitFor(async () => (await queue.getJobCounts('active', 'waiting', 'delayed')).active === 0, { what: 'the jobs ended' });
        const jobs = await Promise.all(offers.map((o) => queue.getJob(jobId('evaluate', o.uuid))));
        expect(jobs.map((j) => typeof j?.finishedOn)).to.deep.equal(['number', 'number', 'number']);
      });
    });

    it('a window’s job run before its deadline (promoted by hand on the board) goes back to the delayed set and closes the window at its deadline, not before (D2)', async () => {
      await withWorker('0', async () => {
        const [o] = await staggered(1, 1500, 0);
        const queue = app.rt.queues.get('offer-evaluation');
        await (await queue.getJob(jobId('evaluate', o.uuid)))!.promote();
        const [move] = await closedAt([o]);
        expect(move.at.getTime(), 'not before its deadline').to.be.at.least(o.deadlineAt.getTime());
        const ran = await waitFor(
          async () => {
            const j = await queue.getJob(jobId('evaluate', o.uuid));
            return j?.finishedOn ? j : null;
          },
          { what: 'the job ended' },
        );
        expect(ran.attemptsStarted, 'taken early, then again at its deadline').to.equal(2);
        expect(ran.attemptsMade, 'BullMQ counts the move back as one attempt of its five').to.equal(1);
        expect(ran.failedReason ?? null, 'not a failure').to.equal(null);
      });
    });

    it('stopping the worker ends a run waiting for its next deadline at once; that window’s own job is kept', async () => {
      await withWorker('5000', async () => {
        const [first, second] = await staggered(2, 300, 3000);
        await closedAt([first]);
        const queue = app.rt.queues.get('offer-evaluation');
        // the first window's job is still running: its run waits for the second deadline, 3 s away
        expect((await queue.getJobCounts('active')).active).to.equal(1);
        app.rt.closingRun!.stop();
        await waitFor(async () => (await queue.getJobCounts('active')).active === 0, { what: 'the run ended', timeoutMs: 2000 });
        expect(await fork().count(OfferTransition, { offer: second.uuid, fromState: 'ABIERTA' }), 'the second window is still open').to.equal(0);
        expect(await queue.getJob(jobId('evaluate', second.uuid)), 'its own job is still there').to.not.equal(undefined);
      });
    });
  });
});
