/**
 * After-commit steps declared with the transition (issue 10 item 4): a move
 * announces itself once its transaction commits, never when it rolls back,
 * and cannot run where nothing would announce it.
 */
import { expect } from 'chai';
import { Offer } from '../../src/db/entities/index.js';
import { lockOffer } from '../../src/domain/offers/lifecycle/stateMachine.js';
import { transition } from '../../src/domain/offers/lifecycle/moves.js';
import type { Audience } from '../../src/realtime/bus.js';
import { resetDb } from '../helpers/db.js';
import { makeApiUser, makeOffer, makeServiceType } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { stubMethod } from '../helpers/stub.js';

describe('a transition announces itself after its commit', () => {
  let app: TestApp;
  let published: Array<{ audience: Audience; event: string; data: unknown }>;
  let restore: () => void;
  before(async () => {
    app = await startApp();
    await resetDb(app.rt.orm);
    await makeServiceType(app.rt.orm.em.fork(), { id: 1 });
  });
  beforeEach(() => {
    published = [];
    const one = stubMethod(app.rt.events, 'publish', async (audience: Audience, event: string, data: unknown) => {
      published.push({ audience, event, data });
    });
    const many = stubMethod(app.rt.events, 'publishMany', async (messages) => {
      published.push(...messages.map(({ audience, event, data }) => ({ audience, event, data })));
    });
    restore = () => {
      one();
      many();
    };
  });
  afterEach(() => restore());
  after(async () => app.close());

  const newOffer = async () => {
    const em = app.rt.orm.em.fork();
    return makeOffer(em, (await makeApiUser(em)).user);
  };
  const stateOf = async (uuid: string) => (await app.rt.orm.em.fork().findOneOrFail(Offer, uuid)).state;

  it('publishes offer.state once the transaction has committed, without any call by the caller', async () => {
    const offer = await newOffer();
    let seenBeforeCommit: number | null = null;
    await app.rt.orm.em.fork().transactional(async (tx) => {
      await transition(tx, (await lockOffer(tx, offer.uuid)) as Offer, { to: 'NO_ASIGNADA', by: 'no-asignacion', actor: 'test' });
      seenBeforeCommit = published.length;
    });
    expect(seenBeforeCommit).to.equal(0);
    expect(published.map((p) => p.event)).to.deep.equal(['offer.state', 'offer.states']);
    expect(published[0].data).to.include({ uuid: offer.uuid, estado: 'NO_ASIGNADA', anterior: 'ABIERTA' });
    // D23: the operators' console hears of it too, in one message per batch of moves
    expect(published[1].audience).to.deep.equal({ kind: 'operators' });
    expect((published[1].data as { cambios: unknown[] }).cambios).to.deep.equal([{ uuid: offer.uuid, estado: 'NO_ASIGNADA', anterior: 'ABIERTA' }]);
  });

  it('announces nothing when the transaction rolls back', async () => {
    const offer = await newOffer();
    const err = await app.rt.orm.em
      .fork()
      .transactional(async (tx) => {
        await transition(tx, (await lockOffer(tx, offer.uuid)) as Offer, { to: 'NO_ASIGNADA', by: 'no-asignacion', actor: 'test' });
        throw new Error('rolled back after the move');
      })
      .then(() => null, (e: unknown) => e);
    expect((err as Error).message).to.equal('rolled back after the move');
    expect(published).to.deep.equal([]);
    expect(await stateOf(offer.uuid)).to.equal('ABIERTA');
  });

  it('refuses to move an offer outside a transaction, where nothing would announce it', async () => {
    const offer = await newOffer();
    const em = app.rt.orm.em.fork();
    const loaded = await em.findOneOrFail(Offer, offer.uuid);
    const err = await transition(em, loaded, { to: 'NO_ASIGNADA', by: 'no-asignacion', actor: 'test' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as Error).message).to.contain('need a root transaction');
    expect(await stateOf(offer.uuid)).to.equal('ABIERTA');
    expect(published).to.deep.equal([]);
  });
});
