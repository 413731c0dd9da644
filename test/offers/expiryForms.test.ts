/**
 * Expiries in batches (issue 12, fifteenth part; D1: SIN_RESPUESTA →
 * EXPIRADA OFFER_MAX_OPEN_MS after creation). The batch form (expiry.ts, what
 * the expiry job runs) writes what `transition` writes for the move; one job
 * expires every unanswered offer past its expiry that nobody holds, in the
 * same statements for two as for eight (counted at the pg driver, not timed),
 * and withdraws their jobs; an offer another transaction holds, or not yet
 * past its expiry, is left.
 */
import { expect } from 'chai';
import pg from 'pg';
import { Offer, OfferTransition, WebhookDelivery } from '../../src/db/entities/index.js';
import { evaluateOffer, expireOffer } from '../../src/domain/offers/selection/evaluation.js';
import { lockOffer } from '../../src/domain/offers/lifecycle/stateMachine.js';
import { transition } from '../../src/domain/offers/lifecycle/moves.js';
import { jobId } from '../../src/queues/registry.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { answeredOffer, closingParties, makeDue, type Generator } from '../helpers/offers.js';
import { statementsOf } from '../helpers/statements.js';
import { writtenAbout } from '../helpers/written.js';

describe('expiring unanswered offers in batches', () => {
  let app: TestApp;
  let gen: Generator;
  const fork = () => app.rt.orm.em.fork();
  const stateOf = async (uuid: string) => (await fork().findOneOrFail(Offer, { uuid })).state;

  /** Offers whose windows closed unanswered (SIN_RESPUESTA), their expiry still ahead. */
  async function unanswered(n: number): Promise<string[]> {
    const uuids: string[] = [];
    for (let i = 0; i < n; i++) uuids.push(await answeredOffer(app, gen, []));
    await makeDue(app, uuids);
    expect(await evaluateOffer(app.rt, uuids[0])).to.equal('no-response');
    for (const uuid of uuids) expect(await stateOf(uuid)).to.equal('SIN_RESPUESTA');
    return uuids;
  }

  /** Moves the offers' expiries a second into the past. */
  const makeExpired = (uuids: readonly string[]) =>
    fork().getConnection().execute(`update offer set expires_at = now() - interval '1 second' where uuid = any(?::uuid[])`, [`{${uuids.join(',')}}`]);

  before(async () => {
    app = await startApp();
    ({ gen } = await closingParties(app));
  });
  after(async () => app.close());

  it('writes the offer, the audit row and the state notice that transition() writes', async () => {
    const [viaEntities] = await unanswered(1);
    await fork().transactional(async (em) => transition(em, (await lockOffer(em, viaEntities))!, { to: 'EXPIRADA', by: 'expiracion', actor: 'system:expiry' }));
    const [viaBatch] = await unanswered(1);
    await makeExpired([viaBatch]);
    expect(await expireOffer(app.rt, viaBatch)).to.equal(true);

    expect(await writtenAbout(app, viaBatch)).to.deep.equal(await writtenAbout(app, viaEntities));
    expect(await stateOf(viaBatch)).to.equal('EXPIRADA');
    // the comparison saw the move and its notice to the generator (D12): the closing's, then the expiry's
    const notices = await fork().find(WebhookDelivery, { offer: viaBatch }, { orderBy: { createdAt: 'asc', id: 'asc' } });
    expect(notices.map((d) => [d.kind, (d.requestBody as { estado?: string }).estado])).to.deep.equal([
      ['state', 'SIN_RESPUESTA'],
      ['state', 'EXPIRADA'],
    ]);
    expect(await app.rt.queues.get('state-notification').getJob(jobId('notify', notices[1].id)), 'its send is enqueued').to.not.equal(undefined);
  });

  it('one job expires every offer past its expiry that nobody holds, in the same statements for 2 as for 8, and withdraws their jobs', async () => {
    const small = await unanswered(2);
    await makeExpired(small);
    const smallStatements = await statementsOf(() => expireOffer(app.rt, small[0]));
    expect(await Promise.all(small.map(stateOf))).to.deep.equal(['EXPIRADA', 'EXPIRADA']);

    const big = await unanswered(8);
    const [notDue] = await unanswered(1);
    const [held] = await unanswered(1);
    await makeExpired([...big, held]);
    const queue = app.rt.queues.get('offer-expiry');
    for (const offerUuid of [...big, notDue, held]) await app.rt.queues.add('offer-expiry', 'expire', { offerUuid }, { delay: 60_000 });

    const holder = new pg.Client({ connectionString: app.rt.config.databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from offer where uuid = $1 for update', [held]);
      let expired = false;
      const bigStatements = await statementsOf(async () => {
        expired = await expireOffer(app.rt, big[3]);
      });
      expect(expired).to.equal(true);
      expect(bigStatements.length, bigStatements.join('\n---\n')).to.equal(smallStatements.length);
      expect(bigStatements.length, 'begin, the locks, the moves, the notices, commit').to.be.at.most(5);
      expect(await stateOf(held), 'held by another transaction: skipped, not waited for').to.equal('SIN_RESPUESTA');
    } finally {
      await holder.query('rollback');
      await holder.end();
    }
    expect(await stateOf(notDue), 'not yet past its expiry').to.equal('SIN_RESPUESTA');
    for (const uuid of big) {
      expect(await stateOf(uuid)).to.equal('EXPIRADA');
      expect(await fork().count(OfferTransition, { offer: uuid, fromState: 'SIN_RESPUESTA', toState: 'EXPIRADA' }), uuid).to.equal(1);
      const notice = await fork().findOneOrFail(WebhookDelivery, { offer: uuid, kind: 'state', requestBody: { estado: 'EXPIRADA' } });
      expect(await app.rt.queues.get('state-notification').getJob(jobId('notify', notice.id)), 'its notice is enqueued').to.not.equal(undefined);
    }
    expect(await queue.getJob(jobId('expire', big[3])), 'the running job is its own').to.not.equal(undefined);
    for (const uuid of big.filter((u) => u !== big[3])) expect(await queue.getJob(jobId('expire', uuid)), uuid).to.equal(undefined);
    for (const uuid of [notDue, held]) expect(await queue.getJob(jobId('expire', uuid)), uuid).to.not.equal(undefined);

    // the held offer's own job expires it when it comes; a late job for an offer already expired changes nothing
    expect(await expireOffer(app.rt, held)).to.equal(true);
    expect(await expireOffer(app.rt, big[0])).to.equal(false);
    expect(await fork().count(OfferTransition, { offer: big[0], toState: 'EXPIRADA' })).to.equal(1);
  });
});
