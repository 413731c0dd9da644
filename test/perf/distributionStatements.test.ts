/**
 * Issue 12.2: a distribution costs a fixed number of SQL statements and one
 * Redis round trip for its publishes, whatever the number of recipients. The
 * statements are counted at the pg driver (every `Client.query` call, from
 * MikroORM or raw); counting is not a timing.
 */
import { expect } from 'chai';
import nock from 'nock';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OfferRecipient, WebhookDelivery, type ApiUser, type Central } from '../../src/db/entities/index.js';
import { distributeOffer } from '../../src/domain/distribution/distribute.js';
import { jobId } from '../../src/queues/registry.js';
import { resetDb } from '../helpers/db.js';
import { BOGOTA, makeApiUser, makeCentral, makeOffer, makeServiceType, makeTechnician } from '../helpers/factories.js';
import { captureEvents, northOf } from '../helpers/geo.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { statementsOf } from '../helpers/statements.js';
import { waitFor } from '../helpers/wait.js';

describe('distribution: statements per offer (issue 12.2)', () => {
  let app: TestApp;
  let em: EntityManager;
  let generator: ApiUser;
  let http: Central;
  let quiet: Central;
  let events: Awaited<ReturnType<typeof captureEvents>>;

  before(async () => {
    app = await startApp({ env: { WEBHOOK_TIMEOUT_MS: '1000', SEARCH_RADIUS_KM: '30', DISTRIBUTION_CAP: '100' } });
    events = await captureEvents(app.rt.config.redisUrl, app.rt.config.queuePrefix);
    await resetDb(app.rt.orm);
    em = app.rt.orm.em.fork();
    await makeServiceType(em, { id: 1, type: 'GRUA' });
    generator = (await makeApiUser(em)).user;
    const receiver = (await makeApiUser(em, { urlApi: 'http://central-push.test', apiEndpoint: { oferta: '/ofertas' } })).user;
    http = await makeCentral(em, { name: 'Central HTTP', apiUser: receiver, coverage: { center: BOGOTA, radiusKm: 40 } });
    quiet = await makeCentral(em, { name: 'Central sin endpoint', coverage: { center: BOGOTA, radiusKm: 40 } });
  });
  afterEach(() => nock.cleanAll());
  after(async () => {
    events.close();
    await app.close();
  });

  /** Available technicians near Bogotá, half of each central, `n` in all; they replace the previous ones. */
  async function technicians(n: number): Promise<void> {
    await em.getConnection().execute(`delete from technician`);
    for (let i = 0; i < n; i++) {
      await makeTechnician(em, i % 2 ? http : quiet, { dni: `T${n}-${i}`, position: northOf(BOGOTA, 0.1 + i * 0.1) });
    }
  }

  async function distributeTo(n: number): Promise<string[]> {
    await technicians(n);
    const push = nock('http://central-push.test').put('/ofertas').reply(200, { status: true });
    const offer = await makeOffer(em, generator);
    // the publishes: one pipeline, never one round trip per technician
    const calls = { publish: 0, publishMany: 0 };
    const bus = app.rt.events;
    const { publish, publishMany } = bus;
    bus.publish = (...args) => (calls.publish++, publish.apply(bus, args));
    bus.publishMany = (...args) => (calls.publishMany++, publishMany.apply(bus, args));
    let sql: string[];
    try {
      sql = await statementsOf(async () => {
        const outcome = await distributeOffer(app.rt, offer.uuid);
        expect(outcome).to.deep.equal({ centrals: 2, technicians: n, published: n, pushed: 1, pushFailed: 0 });
      });
    } finally {
      Object.assign(bus, { publish, publishMany });
    }
    expect(calls).to.deep.equal({ publish: 0, publishMany: 1 });
    expect(push.isDone()).to.equal(true);
    // every technician recorded once and told once
    const rows = await em.fork().find(OfferRecipient, { offer: offer.uuid });
    const ids = rows.flatMap((r) => r.technicianIds);
    expect(ids).to.have.length(n);
    expect(new Set(ids).size).to.equal(n);
    rows.filter((r) => r.technicianIds.length).forEach((r) => expect(r.techniciansNotifiedAt).to.be.instanceOf(Date));
    await waitFor(() => events.messages.filter((m) => m.event === 'offer.new' && (m.data as { uuid: string }).uuid === offer.uuid).length === n);
    expect(await em.fork().count(WebhookDelivery, { offer: offer.uuid, kind: 'offer-push', state: 'ok' })).to.equal(1);
    return sql;
  }

  it('as many statements for 50 technicians as for 5', async () => {
    const five = await distributeTo(5);
    const fifty = await distributeTo(50);
    expect(fifty.length, `5: ${five.length} statements, 50: ${fifty.length}\n${fifty.join('\n---\n')}`).to.equal(five.length);
    // what is left to do (one read), begin, the own offer locked with the others waiting, plan settings,
    // candidates, centrals, the push, the recipients with the offers' mark, commit, the technicians claimed, the
    // push claimed and recorded (one covering central with an endpoint)
    expect(fifty.length, fifty.join('\n---\n')).to.be.at.most(12);
    // and no write of offer_recipient per row
    const recipientWrites = fifty.filter((s) => /(insert into|update) "?offer_recipient/i.test(s));
    expect(recipientWrites.length).to.equal(2);
  });

  it('one job records the offers waiting with its own, and records their pushes, in the statements of one; their jobs then read once', async () => {
    await technicians(10);
    const single = await distributeTo(10);
    const push = nock('http://central-push.test').put('/ofertas').times(5).reply(200, { status: true });
    const offers: Array<{ uuid: string }> = [];
    for (let i = 0; i < 5; i++) offers.push(await makeOffer(em, generator));
    // their jobs are queued (this app runs no workers): the batch withdraws the others' once everything is sent
    for (const offer of offers) await app.rt.queues.add('offer-distribution', 'distribute', { offerUuid: offer.uuid }, { jobId: jobId('distribute', offer.uuid) });
    const queue = app.rt.queues.get('offer-distribution');
    let outcome: unknown;
    const sql = await statementsOf(async () => {
      outcome = await distributeOffer(app.rt, offers[2].uuid);
    });
    expect(outcome).to.deep.equal({ centrals: 2, technicians: 10, published: 10, pushed: 1, pushFailed: 0 });
    const left = await Promise.all(offers.map(async (o) => (await queue.getJob(jobId('distribute', o.uuid)))?.id ?? null));
    expect(left).to.deep.equal([null, null, jobId('distribute', offers[2].uuid), null, null]);
    await queue.remove(jobId('distribute', offers[2].uuid));
    // the same statements as for one offer: the five pushes are claimed together and recorded together
    expect(sql.length, sql.join('\n---\n')).to.equal(single.length);
    expect(push.isDone()).to.equal(true);
    for (const offer of offers) {
      const rows = await em.fork().find(OfferRecipient, { offer: offer.uuid });
      expect(rows.flatMap((r) => r.technicianIds), offer.uuid).to.have.length(10);
      rows.filter((r) => r.technicianIds.length).forEach((r) => expect(r.techniciansNotifiedAt).to.be.instanceOf(Date));
      expect(await em.fork().count(WebhookDelivery, { offer: offer.uuid, kind: 'offer-push', state: 'ok' })).to.equal(1);
      await waitFor(() => events.messages.filter((m) => m.event === 'offer.new' && (m.data as { uuid: string }).uuid === offer.uuid).length === 10);
    }
    // a job of theirs already running when the batch withdrew them: one read each, nothing sent twice
    for (const offer of offers.filter((_, i) => i !== 2)) {
      let again: unknown;
      const read = await statementsOf(async () => {
        again = await distributeOffer(app.rt, offer.uuid);
      });
      expect(again).to.deep.equal({ centrals: 2, technicians: 10, published: 0, pushed: 0, pushFailed: 0 });
      expect(read, read.join('\n---\n')).to.have.length(1);
    }
  });

  it('a batch leaves an offer whose window has closed (its evaluation is due) and one another transaction holds', async () => {
    await technicians(4);
    const push = nock('http://central-push.test').put('/ofertas').reply(200, { status: true });
    const closed = await makeOffer(em, generator, { deadlineAt: new Date(Date.now() - 1000) });
    const held = await makeOffer(em, generator);
    const own = await makeOffer(em, generator);
    const holder = app.rt.orm.em.fork();
    await holder.begin();
    try {
      await holder.execute(`select uuid from offer where uuid = ? for update`, [held.uuid]);
      expect(await distributeOffer(app.rt, own.uuid)).to.deep.include({ technicians: 4, published: 4, pushed: 1 });
    } finally {
      await holder.rollback();
    }
    expect(push.isDone()).to.equal(true);
    for (const left of [closed, held]) {
      expect(await em.fork().count(OfferRecipient, { offer: left.uuid }), left.uuid).to.equal(0);
    }
    await em.fork().nativeUpdate('Offer', { uuid: { $in: [closed.uuid, held.uuid] } }, { state: 'NO_ASIGNADA' });
  });

  it('as many statements for five centrals pushed to as for one, each push recorded on its row and in the delivery log', async () => {
    const single = await distributeTo(6);
    // four more covering centrals with an endpoint, two technicians each; one of them answers 500
    const more: Central[] = [];
    for (let i = 0; i < 4; i++) {
      const receiver = (await makeApiUser(em, { urlApi: `http://central-${i}.test`, apiEndpoint: { oferta: '/ofertas' } })).user;
      const central = await makeCentral(em, { name: `Central ${i}`, apiUser: receiver, coverage: { center: BOGOTA, radiusKm: 40 } });
      for (let j = 0; j < 2; j++) await makeTechnician(em, central, { dni: `M${i}-${j}`, position: northOf(BOGOTA, 1 + i + j * 0.1) });
      more.push(central);
    }
    const pushes = [0, 1, 2, 3].map((i) => nock(`http://central-${i}.test`).put('/ofertas').reply(i === 3 ? 500 : 200, { status: i !== 3 }));
    pushes.push(nock('http://central-push.test').put('/ofertas').reply(200, { status: true }));
    const offer = await makeOffer(em, generator);
    let outcome: unknown;
    try {
      const sql = await statementsOf(async () => {
        outcome = await distributeOffer(app.rt, offer.uuid);
      });
      expect(outcome).to.deep.equal({ centrals: 6, technicians: 14, published: 14, pushed: 4, pushFailed: 1 });
      expect(sql.length, sql.join('\n---\n')).to.equal(single.length);
      pushes.forEach((p) => expect(p.isDone()).to.equal(true));
      const rows = await em.fork().find(WebhookDelivery, { offer: offer.uuid, kind: 'offer-push' }, { orderBy: { url: 'asc' } });
      expect(rows.map((d) => [d.url, d.state, d.attempts, d.statusCode])).to.deep.equal([
        ['http://central-0.test/ofertas', 'ok', 1, 200],
        ['http://central-1.test/ofertas', 'ok', 1, 200],
        ['http://central-2.test/ofertas', 'ok', 1, 200],
        ['http://central-3.test/ofertas', 'failed', 1, 500],
        ['http://central-push.test/ofertas', 'ok', 1, 200],
      ]);
      rows.forEach((d) => expect(d.completedAt).to.be.instanceOf(Date));
      const attempts = await em.getConnection().execute<Array<{ delivery_id: string; attempt: number; status_code: number; error: string | null }>>(
        `select delivery_id, attempt, status_code, error from webhook_attempt where delivery_id in (?) order by status_code`,
        [rows.map((d) => d.id)],
      );
      expect(attempts.map((a) => [a.attempt, a.status_code, a.error])).to.deep.equal([...Array(4).fill([1, 200, null]), [1, 500, 'HTTP 500']]);
    } finally {
      // their technicians gone, the extra centrals cover nobody a later test distributes to
      await em.getConnection().execute(`delete from technician where central_id in (?)`, [more.map((c) => c.id)]);
    }
  });
});
