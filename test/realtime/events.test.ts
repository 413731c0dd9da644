import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { ApiUser } from '../../src/db/entities/index.js';
import { Offer } from '../../src/db/entities/index.js';
import { lockOffer } from '../../src/domain/offers/lifecycle/stateMachine.js';
import { transition } from '../../src/domain/offers/lifecycle/moves.js';
import { perTechnician, type Audience } from '../../src/realtime/bus.js';
import { resetDb } from '../helpers/db.js';
import { makeOffer, makeServiceType } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { connect, makeCrew, makeGenerator, makeOperatorToken, wsUrl, type Crew, type Generator, type TestSocket } from '../helpers/sockets.js';
import { waitFor } from '../helpers/wait.js';

/** A 2.3 response entry. */
const entry = (names: string) => ({ distance: 1.2, techCoords: { latitud: '4.65', longitud: '-74.08' }, tech_names: names, time: 7, rate: 4.5 });

describe('real time: events the server pushes', () => {
  let app: TestApp;
  let genA: Generator;
  let genB: Generator;
  let crew: Crew;
  let otherCrew: Crew;
  let a: TestSocket;
  let a2: TestSocket;
  let b: TestSocket;
  let tech: TestSocket;
  let otherTech: TestSocket;

  const offerOf = (user: ApiUser, uuid: string): Audience => ({ kind: 'offer', offerUuid: uuid, apiUserId: user.id });
  const publish = (audience: Audience, event: string, data: unknown) => app.rt.events.publish(audience, event, data);
  /** Publishes a marker to `s`'s generator and waits for it: everything published before has been routed. */
  const settle = async (s: TestSocket, user: ApiUser) => {
    const mark = randomUUID();
    await publish({ kind: 'generator', apiUserId: user.id }, 'test.mark', { mark });
    await s.next('test.mark', (f) => (f.data as { mark: string }).mark === mark);
  };

  before(async () => {
    app = await startApp({ env: { HEARTBEAT_MS: '250' } });
    await resetDb(app.rt.orm);
    const em = app.rt.orm.em.fork();
    await makeServiceType(em);
    genA = await makeGenerator(em);
    genB = await makeGenerator(em);
    crew = await makeCrew(em);
    otherCrew = await makeCrew(em);
    [a, a2, b, tech, otherTech] = await Promise.all([
      connect(wsUrl(app.url), { headers: genA.headers }),
      connect(wsUrl(app.url, '/v1'), { headers: genA.headers }),
      connect(wsUrl(app.url), { headers: genB.headers }),
      connect(wsUrl(app.url), { headers: crew.headers }),
      connect(wsUrl(app.url), { headers: otherCrew.headers }),
    ]);
  });
  after(async () => app.close());

  it('a generator gets each response, the selection, every state change and the end of its own offers, on all its sockets', async () => {
    const uuid = randomUUID();
    const au = offerOf(genA.user, uuid);
    await publish(au, 'offer.response', { uuid, response: entry('Ana') });
    await publish(au, 'offer.accepted', { uuid, accepted: entry('Ana') });
    await publish(au, 'offer.state', { uuid, estado: 'ACEPTADA', anterior: 'ABIERTA', fecha: new Date().toISOString() });
    await publish(au, 'offer.closed', { uuid, result: 'selected' });
    for (const s of [a, a2]) {
      expect((await s.next('offer.response', (f) => (f.data as { uuid: string }).uuid === uuid)).data).to.deep.equal({ uuid, response: entry('Ana') });
      expect((await s.next('offer.accepted', (f) => (f.data as { uuid: string }).uuid === uuid)).data).to.deep.equal({ uuid, accepted: entry('Ana') });
      expect((await s.next('offer.state', (f) => (f.data as { uuid: string }).uuid === uuid)).data).to.include({ estado: 'ACEPTADA', anterior: 'ABIERTA' });
      expect((await s.next('offer.closed', (f) => (f.data as { uuid: string }).uuid === uuid)).data).to.deep.equal({ uuid, result: 'selected' });
    }
  });

  it('a generator never receives another generator’s offer events', async () => {
    const uuid = randomUUID();
    await publish(offerOf(genB.user, uuid), 'offer.response', { uuid, response: entry('Beto') });
    await publish(offerOf(genB.user, uuid), 'offer.state', { uuid, estado: 'NO_ASIGNADA', anterior: 'ABIERTA', fecha: new Date().toISOString() });
    await b.next('offer.state', (f) => (f.data as { uuid: string }).uuid === uuid);
    await settle(a, genA.user);
    const seenByA = a.frames.filter((f) => (f.data as { uuid?: string }).uuid === uuid);
    expect(seenByA).to.deep.equal([]);
  });

  it('a real transition reaches the generator as offer.state after commit, announced by the transition itself', async () => {
    const em = app.rt.orm.em.fork();
    const offer = await makeOffer(em, genA.user);
    await em.transactional(async (tx) => {
      const locked = await lockOffer(tx, offer.uuid);
      return transition(tx, locked as Offer, { to: 'NO_ASIGNADA', by: 'no-asignacion', actor: 'test' });
    });
    const f = await a.next('offer.state', (x) => (x.data as { uuid: string }).uuid === offer.uuid);
    expect(f.data).to.include({ uuid: offer.uuid, estado: 'NO_ASIGNADA', anterior: 'ABIERTA' });
    expect(Date.parse((f.data as { fecha: string }).fecha)).to.be.a('number').and.not.NaN;
  });

  it('a technician gets the offers distributed to it, then that offer’s states and end, never the other responses', async () => {
    const uuid = randomUUID();
    const offerNew = { uuid, tipoServicio: 1, descripcionServicio: 'GRUA', latitudOrigen: 4.65, longitudOrigen: -74.08, deadline: new Date().toISOString(), distance: 1.5 };
    await publish({ kind: 'technician', technicianId: crew.technician.id }, 'offer.new', offerNew);
    expect((await tech.next('offer.new', (f) => (f.data as { uuid: string }).uuid === uuid)).data).to.deep.equal(offerNew);
    const au = offerOf(genA.user, uuid);
    await publish(au, 'offer.response', { uuid, response: entry('Otro') });
    await publish(au, 'offer.accepted', { uuid, accepted: entry('Otro') });
    await publish(au, 'offer.state', { uuid, estado: 'NO_ASIGNADA', anterior: 'ABIERTA', fecha: new Date().toISOString() });
    await publish(au, 'offer.closed', { uuid, result: 'withdrawn' });
    // offer.closed after the final state still arrives (the enrolment outlives the final state by a sweep)
    await tech.next('offer.closed', (f) => (f.data as { uuid: string }).uuid === uuid);
    const mine = tech.frames.filter((f) => (f.data as { uuid?: string }).uuid === uuid).map((f) => f.event);
    expect(mine).to.deep.equal(['offer.new', 'offer.state', 'offer.closed']);
    await a.next('offer.closed', (f) => (f.data as { uuid: string }).uuid === uuid);
    expect(otherTech.frames.filter((f) => (f.data as { uuid?: string }).uuid === uuid)).to.deep.equal([]);
    // two sweeps after the final state the enrolment is gone
    await waitFor(() => app.http.realtime.trackedOffers === 0, 3000, 'enrolment swept');
  });

  it('one `technicians` message (a distribution’s) reaches each listed technician with its own fields and enrols it; no one else', async () => {
    const uuid = randomUUID();
    const fields = { uuid, tipoServicio: 1, descripcionServicio: 'GRUA', latitudOrigen: 4.65, longitudOrigen: -74.08, deadline: new Date().toISOString() };
    const notListed = 987654;
    await app.rt.events.publishMany([
      {
        audience: { kind: 'technicians', technicianIds: [crew.technician.id, notListed] },
        event: 'offer.new',
        data: fields,
        each: { [String(crew.technician.id)]: { distance: 1.5 }, [String(notListed)]: { distance: 9 } },
      },
    ]);
    expect((await tech.next('offer.new', (f) => (f.data as { uuid: string }).uuid === uuid)).data).to.deep.equal({ ...fields, distance: 1.5 });
    // enrolled like a single-technician offer.new: the offer's state reaches it
    await publish(offerOf(genA.user, uuid), 'offer.state', { uuid, estado: 'NO_ASIGNADA', anterior: 'ABIERTA', fecha: new Date().toISOString() });
    await tech.next('offer.state', (f) => (f.data as { uuid: string }).uuid === uuid);
    await settle(a, genA.user);
    expect(otherTech.frames.filter((f) => (f.data as { uuid?: string }).uuid === uuid)).to.deep.equal([]);
    expect(a.frames.filter((f) => f.event === 'offer.new' && (f.data as { uuid?: string }).uuid === uuid)).to.deep.equal([]);
  });

  it('socketId from POST /oferta: acknowledged to that socket when it is the same generator’s, ignored otherwise', async () => {
    const uuid = randomUUID();
    await publish(offerOf(genA.user, uuid), 'offer.subscribe', { uuid, socketId: a2.socketId });
    expect((await a2.next('offer.subscribed', (f) => (f.data as { uuid: string }).uuid === uuid)).data).to.deep.equal({ uuid });
    const foreign = randomUUID();
    await publish(offerOf(genB.user, foreign), 'offer.subscribe', { uuid: foreign, socketId: a.socketId });
    await settle(a, genA.user);
    await settle(b, genB.user);
    expect(a.events('offer.subscribed').map((f) => f.data)).to.not.deep.include({ uuid: foreign });
    expect(b.events('offer.subscribed')).to.deep.equal([]);
    expect(a.events('offer.subscribe')).to.deep.equal([]);
  });

  it('operators get operator events; generators and technicians do not', async () => {
    const token = await makeOperatorToken(app.rt.orm.em.fork(), app.rt.config.jwtSecret);
    const op = await connect(wsUrl(app.url, `/v3?token=${token}`));
    await publish({ kind: 'operators' }, 'ops.notice', { text: 'hola' });
    expect((await op.next('ops.notice')).data).to.deep.equal({ text: 'hola' });
    await settle(a, genA.user);
    expect(a.events('ops.notice')).to.deep.equal([]);
    expect(tech.events('ops.notice')).to.deep.equal([]);
    await op.close();
  });

  it('answers ping with pong, echoing ref', async () => {
    b.send('ping', {}, 'p-1');
    expect(await b.next('pong')).to.deep.equal({ event: 'pong', data: {}, ref: 'p-1' });
  });
});

describe('a `technicians` bus message as single-technician messages (perTechnician)', () => {
  const msg = {
    audience: { kind: 'technicians' as const, technicianIds: [1, 2, 3] },
    event: 'offer.new',
    data: { uuid: 'u' },
    each: { '1': { distance: 1 }, '2': { distance: 2 }, '3': { distance: 3 } },
  };

  it('gives every listed technician its own fields; with `wanted`, only the technicians it accepts (an API process: those with a socket there)', () => {
    expect(perTechnician(msg).map((m) => m.data)).to.deep.equal([1, 2, 3].map((d) => ({ uuid: 'u', distance: d })));
    const here = perTechnician(msg, (id) => id === 2);
    expect(here).to.deep.equal([{ audience: { kind: 'technician', technicianId: 2 }, event: 'offer.new', data: { uuid: 'u', distance: 2 } }]);
    expect(perTechnician(msg, () => false)).to.deep.equal([]);
  });
});
