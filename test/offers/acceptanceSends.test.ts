/**
 * Issue 12, item 3: the acceptance notification (6.1) sent by the process
 * that selected, right after the commit, without the webhook-dispatch queue's
 * hop; still once (the same claim as the job's), bounded in number, handed to
 * the queue when it cannot be sent from there, and finished before the
 * process stops.
 */
import { expect } from 'chai';
import nock from 'nock';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Offer, WebhookDelivery } from '../../src/db/entities/index.js';
import { dispatchAcceptance, sendClaimedAcceptance } from '../../src/domain/offers/selection/acceptanceNotification.js';
import { closeWindows, lockDueWindows } from '../../src/domain/offers/selection/closing.js';
import { evaluateOffer } from '../../src/domain/offers/selection/evaluation.js';
import { InFlight, type Reservation } from '../../src/main/inFlight.js';
import type { Runtime } from '../../src/domain/ports.js';
import { jobId } from '../../src/queues/registry.js';
import { startWorkers } from '../../workers/index.js';
import { resetDb } from '../helpers/db.js';
import { makeServiceType } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { GENERATOR_URL, RESPUESTA_PATH, acceptanceBody, distributeTo, makeDue, makeGenerator, makeResponder, offerBody, type Generator } from '../helpers/offers.js';
import { statementsOf } from '../helpers/statements.js';
import { waitFor } from '../helpers/wait.js';

describe('InFlight', () => {
  const never = () => new Promise<void>(() => undefined);

  it('starts up to its limit, one task per key, and reports a task that throws', async () => {
    const errors: unknown[] = [];
    const f = new InFlight(2, (err) => errors.push(err));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    expect(f.tryStart('a', () => held)).to.equal(true);
    expect(f.tryStart('a', never), 'the same key again').to.equal(false);
    expect(f.tryStart('b', () => Promise.reject(new Error('boom')))).to.equal(true);
    expect(f.tryStart('c', never), 'full').to.equal(false);
    expect(f.has('a')).to.equal(true);
    await waitFor(() => errors.length === 1, 1000, 'the failure to be reported');
    expect((errors[0] as Error).message).to.equal('boom');
    expect(f.has('b'), 'an ended task leaves').to.equal(false);
    release();
    await f.drain();
    expect(f.size).to.equal(0);
  });

  it('drain waits for the running tasks and refuses new ones', async () => {
    const f = new InFlight(5, () => undefined);
    let release!: () => void;
    let ended = false;
    f.tryStart('a', async () => {
      await new Promise<void>((resolve) => (release = resolve));
      ended = true;
    });
    let drained = false;
    const draining = f.drain().then(() => (drained = true));
    expect(f.tryStart('b', never), 'refused while draining').to.equal(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(drained).to.equal(false);
    release();
    await draining;
    expect(ended).to.equal(true);
  });

  it('holds a place until it is started or released, whichever comes first', async () => {
    const f = new InFlight(1, (err) => expect.fail(String(err)));
    const place = f.reserve('a')!;
    expect(place).to.not.equal(null);
    expect(f.reserve('b'), 'full while held').to.equal(null);
    expect(f.tryStart('b', never), 'full while held').to.equal(false);
    let drained = false;
    const draining = f.drain().then(() => (drained = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(drained, 'drain waits for a held place').to.equal(false);
    let ran = 0;
    place.start(async () => void ran++);
    place.release();
    place.start(async () => void ran++);
    await draining;
    expect(ran, 'started once').to.equal(1);
    expect(f.size).to.equal(0);
    const released = new InFlight(1, () => undefined);
    released.reserve('a')!.release();
    expect(released.size).to.equal(0);
    expect(released.reserve('a'), 'free again').to.not.equal(null);
  });

  it('a limit of 0 starts nothing', () => {
    expect(new InFlight(0, () => undefined).tryStart('a', never)).to.equal(false);
  });
});

describe('acceptance notification sent by the selecting process', () => {
  let app: TestApp;
  let gen: Generator;
  const fork = () => app.rt.orm.em.fork();
  const dispatchJob = (deliveryId: string) => app.rt.queues.get('webhook-dispatch').getJob(jobId('deliver', deliveryId));
  const deliveryOf = (uuid: string) => fork().findOneOrFail(WebhookDelivery, { offer: uuid });

  /** An offer answered by a central (its window closes when the test evaluates it). */
  async function answered(auth = gen.auth): Promise<string> {
    const r = await makeResponder(fork());
    const body = offerBody();
    expect((await app.client.post('api/v3/oferta', { json: body, headers: { authorization: auth } })).statusCode).to.equal(200);
    const uuid = body.uuid as string;
    await distributeTo(app.rt.orm.em.fork(), uuid, r); // D20: only a recipient answers
    expect((await app.client.put('api/v3/aceptacion', { json: acceptanceBody(uuid, r), headers: { 'x-apikey': r.key } })).statusCode).to.equal(200);
    return uuid;
  }

  before(async () => {
    app = await startApp({ env: { WEBHOOK_TIMEOUT_MS: '5000' } });
    await resetDb(app.rt.orm);
    await makeServiceType(fork(), { id: 1 });
    gen = await makeGenerator(fork());
  });
  afterEach(() => {
    nock.cleanAll();
    app.rt.acceptanceSends = null;
  });
  after(async () => app.close());

  it('is sent once, right after the selection, with no webhook-dispatch job', async () => {
    const sends = new InFlight(5, (err) => expect.fail(String(err)));
    app.rt.acceptanceSends = sends;
    const uuid = await answered();
    const scope = nock(GENERATOR_URL).put(RESPUESTA_PATH).reply(200, 'ok');
    expect(await evaluateOffer(app.rt, uuid)).to.equal('selected');
    await sends.drain();
    expect(scope.isDone()).to.equal(true);
    const delivery = await deliveryOf(uuid);
    expect(delivery).to.include({ state: 'ok', attempts: 1, statusCode: 200 });
    expect(await dispatchJob(delivery.id), 'no queue hop').to.equal(undefined);
    expect((await fork().findOneOrFail(Offer, { uuid })).state).to.equal('ACEPTADA');
  });

  it('goes to the queue when enough are in flight, or in a process that does not send them', async () => {
    for (const sends of [new InFlight(0, () => undefined), null]) {
      app.rt.acceptanceSends = sends;
      const uuid = await answered();
      const scope = nock(GENERATOR_URL).put(RESPUESTA_PATH).reply(200);
      expect(await evaluateOffer(app.rt, uuid)).to.equal('selected');
      const delivery = await deliveryOf(uuid);
      expect((await dispatchJob(delivery.id))?.data).to.deep.equal({ deliveryId: delivery.id });
      expect(scope.isDone(), 'not sent here').to.equal(false);
      expect(delivery.state).to.equal('pending');
    }
  });

  it('goes to the queue unclaimed when its claim cannot be made (PostgreSQL away after the commit): the job sends it', async () => {
    const uuid = await answered();
    const sends = new InFlight(5, (err) => expect.fail(String(err)));
    const broken = {
      ...app.rt,
      acceptanceSends: sends,
      orm: { em: { fork: () => { throw new Error('database unavailable'); } } } as unknown as MikroORM,
    } as Runtime;
    // the batch reserves a place and writes the 6.1 pending, then its claim from here fails
    let place: Reservation | null = null;
    const planned = await app.rt.orm.em.fork().transactional(async (em) => {
      const { windows } = await lockDueWindows(em, uuid, 0, new Date());
      const [closed] = await closeWindows(em, app.rt.config, windows, 'test', (id) => (place = sends.reserve(id)) !== null);
      return closed.kind === 'selected' ? closed.claimed : null;
    });
    expect(planned).to.include({ kind: 'acceptance', attempts: 1, offerUuid: uuid });
    expect(sends.size, 'the place is held until started').to.equal(1);
    expect(await deliveryOf(uuid), 'written pending: nothing is on the wire yet').to.include({ state: 'pending', attempts: 0, sentAt: null });
    sendClaimedAcceptance(broken, place!, planned!);
    await sends.drain();
    const job = await dispatchJob(planned!.id);
    expect(job?.data).to.deep.equal({ deliveryId: planned!.id });
    await job!.remove();
    // never claimed, never sent: the job (here: its processor) sends it, once
    expect(await deliveryOf(uuid)).to.include({ state: 'pending', attempts: 0 });
    const scope = nock(GENERATOR_URL).put(RESPUESTA_PATH).reply(200, 'ok');
    expect((await dispatchAcceptance(app.rt, planned!.id))?.ok).to.equal(true);
    expect(scope.isDone()).to.equal(true);
    expect(await deliveryOf(uuid)).to.include({ state: 'ok', attempts: 1, statusCode: 200 });
  });

  it('a process that dies after a batch’s commit, before its sends, loses none of them (issue 30.7): each is sent once by the recovery', async () => {
    // the process died: the places it held never start their sends
    const dead = { start: () => undefined, release: () => undefined } satisfies Reservation;
    const sends = { size: 0, has: () => true, tryStart: () => false, reserve: () => dead, drain: async () => undefined };
    app.rt.acceptanceSends = sends;
    const uuids: string[] = [];
    for (let i = 0; i < 4; i++) uuids.push(await answered());
    await makeDue(app, uuids);
    expect(await evaluateOffer(app.rt, uuids[0])).to.equal('selected');
    app.rt.acceptanceSends = null;
    const rows = await Promise.all(uuids.map(deliveryOf));
    expect(rows.map((r) => r.state), 'nothing went out: none is claimed').to.deep.equal(['pending', 'pending', 'pending', 'pending']);
    // the recovery (the sweeper's jobs): each is sent, once; none is failed as abandoned
    const scope = nock(GENERATOR_URL).put(RESPUESTA_PATH).times(4).reply(200, 'ok');
    const outcomes = await Promise.all(rows.map((r) => dispatchAcceptance(app.rt, r.id)));
    expect(outcomes.map((o) => o?.ok)).to.deep.equal([true, true, true, true]);
    expect(scope.isDone()).to.equal(true);
    for (const uuid of uuids) {
      expect(await deliveryOf(uuid)).to.include({ state: 'ok', attempts: 1 });
      expect((await fork().findOneOrFail(Offer, { uuid })).state).to.equal('ACEPTADA');
    }
  });

  it('a batch’s sends are claimed together, in one statement, once their requests are about to go out', async () => {
    const sends = new InFlight(10, (err) => expect.fail(String(err)));
    app.rt.acceptanceSends = sends;
    const uuids: string[] = [];
    for (let i = 0; i < 3; i++) uuids.push(await answered());
    await makeDue(app, uuids);
    const scope = nock(GENERATOR_URL).put(RESPUESTA_PATH).times(3).reply(200, 'ok');
    const statements = await statementsOf(async () => {
      expect(await evaluateOffer(app.rt, uuids[0])).to.equal('selected');
      await sends.drain();
    });
    expect(scope.isDone()).to.equal(true);
    expect(statements.filter((q) => /^update webhook_delivery d set state = 'sending'/.test(q.trim())), 'the claims').to.have.length(1);
    for (const uuid of uuids) expect(await deliveryOf(uuid)).to.include({ state: 'ok', attempts: 1 });
  });

  it('a closing batch that does not commit releases the places it held', async () => {
    const sends = new InFlight(5, (err) => expect.fail(String(err)));
    app.rt.acceptanceSends = sends;
    const uuid = await answered();
    const scope = nock(GENERATOR_URL).put(RESPUESTA_PATH).reply(200);
    const conn = fork().getConnection();
    await conn.execute(`create function refuse_delivery() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`);
    await conn.execute(`create trigger refuse_delivery before insert on webhook_delivery for each row execute function refuse_delivery()`);
    try {
      await evaluateOffer(app.rt, uuid).then(
        () => expect.fail('the batch should not commit'),
        (err: Error) => expect(err.message).to.contain('refused'),
      );
    } finally {
      await conn.execute(`drop trigger refuse_delivery on webhook_delivery; drop function refuse_delivery()`);
    }
    expect(sends.size, 'no place left held').to.equal(0);
    expect(scope.isDone(), 'nothing sent').to.equal(false);
    expect((await fork().findOneOrFail(Offer, { uuid })).state).to.equal('ABIERTA');
    // the job's retry closes it and sends it once
    expect(await evaluateOffer(app.rt, uuid)).to.equal('selected');
    await sends.drain();
    expect(scope.isDone()).to.equal(true);
    expect(await deliveryOf(uuid)).to.include({ state: 'ok', attempts: 1 });
  });

  describe('with a generator that holds its answer', () => {
    let server: Server;
    const held: ServerResponse[] = [];
    let hookUrl = '';

    before(async () => {
      server = createServer((req, res) => {
        req.resume();
        req.on('end', () => held.push(res));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      for (const res of held) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('a worker group stops only once its sends have their answer; a later evaluation of the offer enqueues nothing meanwhile', async () => {
      const slow = await makeGenerator(fork(), { urlApi: hookUrl, apiEndpoint: { respuesta: '/hook' } });
      const group = await startWorkers(app.rt, { queues: ['webhook-dispatch'] });
      expect(app.rt.acceptanceSends, 'the process taking webhook-dispatch jobs sends them itself').to.not.equal(null);
      const uuid = await answered(slow.auth);
      expect(await evaluateOffer(app.rt, uuid)).to.equal('selected');
      await waitFor(() => held.length === 1, 5000, 'the generator to receive the notification');
      const delivery = await deliveryOf(uuid);
      expect(delivery.state).to.equal('sending');

      // the offer's own evaluation job, run after a batch closed it, leaves the send to this process
      expect(await evaluateOffer(app.rt, uuid)).to.equal('nothing');
      expect(await dispatchJob(delivery.id)).to.equal(undefined);

      let closed = false;
      const closing = group.close().then(() => (closed = true));
      await waitFor(() => group.workers.every((w) => !w.isRunning()), 5000, 'the queue workers to stop');
      expect(closed, 'still waiting for the answer').to.equal(false);
      held[0].end('ok');
      await closing;
      expect(await deliveryOf(uuid)).to.include({ state: 'ok', statusCode: 200, attempts: 1 });
      expect((await fork().findOneOrFail(Offer, { uuid })).state).to.equal('ACEPTADA');
      expect(held).to.have.length(1);
    });

    it('a batch’s answers that come back together are recorded together (issue 32): the pool is not taken one connection per send', async () => {
      const sends = new InFlight(20, (err) => expect.fail(String(err)));
      app.rt.acceptanceSends = sends;
      const holder = await makeGenerator(fork(), { urlApi: hookUrl, apiEndpoint: { respuesta: '/hook' } });
      const uuids: string[] = [];
      for (let i = 0; i < 8; i++) uuids.push(await answered(holder.auth));
      await makeDue(app, uuids);
      const before = held.length;
      const statements = await statementsOf(async () => {
        expect(await evaluateOffer(app.rt, uuids[0])).to.equal('selected');
        await waitFor(() => held.length === before + 8, 5000, 'the generator to hold the 8 notifications');
        // all answered in one go, as a generator's replies to a batch's requests come back
        for (const res of held.splice(before)) res.end('ok');
        await sends.drain();
      });
      const records = statements.filter((q) => /^with sent as \(/.test(q.trim()));
      expect(records.length, 'two written at once at most, the others together after them').to.be.within(1, 3);
      for (const uuid of uuids) expect(await deliveryOf(uuid)).to.include({ state: 'ok', attempts: 1, statusCode: 200 });
    });
  });
});
