import { expect } from 'chai';
import nock from 'nock';
import { randomUUID } from 'node:crypto';
import { Offer, OfferRecipient, WebhookDelivery } from '../../src/db/entities/index.js';
import { planAcceptanceNotification } from '../../src/domain/offers/selection/acceptanceNotification.js';
import { notifyJobId } from '../../src/domain/notifications/enqueue.js';
import { SWEEP_LIMIT, SWEEP_SCAN_PAGES, sweepOutbox } from '../../src/domain/outbox/sweep.js';
import { jobId } from '../../src/queues/registry.js';
import { RESPUESTA_PATH } from '../helpers/factories.js';
import { ABANDONED_ERROR } from '../../src/domain/offers/selection/acceptanceNotification.js';
import type { TestApp } from '../helpers/harness.js';
import { CENTRAL_URL, GENERATOR_URL, offerIn, respond, startOps, type Generator, type Provider } from '../helpers/ops.js';
import { waitFor } from '../helpers/wait.js';

/** The sweeper repairs what a lost enqueue left behind: acceptance notifications (D5) and distributions (D8). */
describe('outbox sweeper: lost acceptance and distribution jobs', () => {
  let app: TestApp;
  let gen: Generator;
  let prov: Provider;

  before(async () => {
    // Workers on a queue prefix of their own; the sweeper runs only when a test calls it.
    ({ app, gen, prov } = await startOps({
      workers: true,
      env: { QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_recovery`, SWEEP_INTERVAL_MS: '0', WEBHOOK_TIMEOUT_MS: '1000' },
    }));
  });
  afterEach(() => nock.cleanAll());
  after(async () => app.close());

  const fork = () => app.rt.orm.em.fork();
  const ago = (ms: number) => new Date(Date.now() - ms);

  /** Counts the acceptance notifications the generator receives, by offer; state notifications are answered 200. */
  function generatorEndpoints(): Map<string, number> {
    const received = new Map<string, number>();
    nock(GENERATOR_URL)
      .persist()
      .put(RESPUESTA_PATH)
      .reply(200, (_uri, body) => {
        const id = String((body as { id: unknown }).id);
        received.set(id, (received.get(id) ?? 0) + 1);
        return 'ok';
      });
    nock(GENERATOR_URL).persist().put('/estado').reply(200);
    nock(CENTRAL_URL).persist().put(/.*/).reply(200);
    return received;
  }

  /** An ACEPTADA offer whose acceptance notification was planned and committed, but never enqueued. */
  async function selectedWithoutJob(createdAt: Date): Promise<{ offer: Offer; deliveryId: string }> {
    const em = fork();
    const offer = await offerIn(em, gen, 'ACEPTADA', prov);
    const response = await respond(em, offer, prov);
    const deliveryId = planAcceptanceNotification(em, app.rt.config, offer, gen.user, response)!;
    await em.flush();
    await em.nativeUpdate(WebhookDelivery, { id: deliveryId }, { createdAt });
    return { offer, deliveryId };
  }

  const delivery = (id: string) => fork().findOneOrFail(WebhookDelivery, { id });
  const stateOf = async (uuid: string) => (await fork().findOneOrFail(Offer, { uuid })).state;

  it('sends, once, an acceptance notification left pending; leaves a recent one and one whose job is still queued', async () => {
    const received = generatorEndpoints();
    const lost = await selectedWithoutJob(ago(120_000));
    const recent = await selectedWithoutJob(new Date());
    const queued = await selectedWithoutJob(ago(120_000));
    const queue = app.rt.queues.get('webhook-dispatch');
    await queue.add('deliver', { deliveryId: queued.deliveryId }, { jobId: jobId('deliver', queued.deliveryId), delay: 600_000 });

    expect(await sweepOutbox(app.rt)).to.include({ acceptances: 1 });
    await waitFor(async () => (await delivery(lost.deliveryId)).state === 'ok', 8000, 'the lost acceptance notification');
    expect(Object.fromEntries(received)).to.deep.equal({ [lost.offer.uuid]: 1 });
    expect(await stateOf(lost.offer.uuid)).to.equal('ACEPTADA');
    expect((await delivery(recent.deliveryId)).state).to.equal('pending');
    expect((await delivery(queued.deliveryId)).state).to.equal('pending');
    // Sent: nothing left to repair.
    expect(await sweepOutbox(app.rt)).to.include({ acceptances: 0 });
    expect(received.get(lost.offer.uuid)).to.equal(1);

    await (await queue.getJob(jobId('deliver', queued.deliveryId)))!.remove();
    await fork().nativeUpdate(WebhookDelivery, { id: { $in: [recent.deliveryId, queued.deliveryId] } }, { state: 'failed' });
  });

  it('settles an acceptance notification whose sender died mid-request: failed unanswered, offer INACTIVA, nothing sent again', async () => {
    const received = generatorEndpoints();
    const stuck = await selectedWithoutJob(ago(120_000));
    await fork().nativeUpdate(WebhookDelivery, { id: stuck.deliveryId }, { state: 'sending', attempts: 1, sentAt: ago(60_000) });

    expect(await sweepOutbox(app.rt)).to.include({ acceptances: 1 });
    await waitFor(async () => (await stateOf(stuck.offer.uuid)) === 'INACTIVA', 8000, 'the offer to become INACTIVA');
    expect(await delivery(stuck.deliveryId)).to.include({ state: 'failed', attempts: 1, error: ABANDONED_ERROR });
    expect(received.size).to.equal(0);
    expect(await sweepOutbox(app.rt)).to.include({ acceptances: 0 });
  });

  it('distributes an open offer whose distribution job was lost, and with it an offer waiting; leaves one already distributed', async () => {
    const em = fork();
    const lost = await offerIn(em, gen, 'ABIERTA', undefined, { createdAt: ago(30_000) });
    const distributed = await offerIn(em, gen, 'ABIERTA', undefined, { createdAt: ago(30_000), distributedAt: ago(29_000) });
    em.create(OfferRecipient, { offer: distributed, central: prov.central.id, channel: 'none', createdAt: new Date() });
    await em.flush();
    // too new for the sweeper (its own job is presumably queued), but waiting: the lost offer's job records it too
    const fresh = await offerIn(em, gen, 'ABIERTA');

    expect(await sweepOutbox(app.rt)).to.include({ distributions: 1 });
    const recipients = await waitFor(async () => {
      const rows = await fork().find(OfferRecipient, { offer: lost.uuid });
      return rows.length === 1 ? rows : null;
    }, 8000, 'the lost distribution');
    expect(recipients.map((r) => [r.central.id, r.technicianIds])).to.deep.equal([[prov.central.id, [prov.technician.id]]]);
    expect(await fork().count(OfferRecipient, { offer: distributed.uuid })).to.equal(1);
    expect((await fork().find(OfferRecipient, { offer: fresh.uuid })).map((r) => r.technicianIds)).to.deep.equal([[prov.technician.id]]);
    // Distributed: nothing left to repair.
    expect(await sweepOutbox(app.rt)).to.include({ distributions: 0 });

    await fork().nativeUpdate(Offer, { uuid: { $in: [lost.uuid, distributed.uuid, fresh.uuid] } }, { state: 'NO_ASIGNADA' });
  });

  it('is not starved: with more stale rows than a batch whose oldest hold live delayed jobs, the others are recovered in one sweep', async () => {
    const estado: string[] = [];
    nock(GENERATOR_URL)
      .persist()
      .put('/estado')
      .reply(200, (_uri, body) => {
        estado.push(String((body as { detalle: unknown }).detalle));
        return 'ok';
      });
    const em = fork();
    const offer = await offerIn(em, gen, 'EN_CAMINO', prov);
    const row = (path: string, createdAt: Date, detalle: string) =>
      em.create(WebhookDelivery, {
        id: randomUUID(),
        offer,
        kind: 'state',
        eventId: randomUUID(),
        url: `${GENERATOR_URL}${path}`,
        method: 'PUT',
        requestHeaders: { 'content-type': 'application/json' },
        requestBody: { id: offer.uuid, estado: 'EN_CAMINO', fecha: createdAt.toISOString(), detalle },
        receiver: gen.user.id,
        state: 'pending',
        attempts: 0,
        createdAt,
      });
    // The oldest: a receiver that answered 503 Retry-After: 3600, their jobs delayed an hour.
    const waiting = Array.from({ length: SWEEP_LIMIT + 20 }, (_, i) => row('/slow', ago(600_000 - i), `waiting-${i}`));
    const lost = [0, 1, 2].map((i) => row('/estado', ago(120_000 - i), `lost-${i}`));
    await em.flush();
    const queue = app.rt.queues.get('state-notification');
    await queue.addBulk(
      waiting.map((d) => ({ name: 'notify', data: { deliveryId: d.id }, opts: { jobId: notifyJobId(d.id), delay: 3_600_000 } })),
    );

    expect(await sweepOutbox(app.rt)).to.include({ notifications: 3 });
    await waitFor(() => estado.length === 3, 8000, 'the three lost notifications');
    expect([...estado].sort()).to.deep.equal(['lost-0', 'lost-1', 'lost-2']);
    expect(await queue.getJobState(notifyJobId(waiting[0].id))).to.equal('delayed');

    await Promise.all(waiting.map((d) => queue.remove(notifyJobId(d.id))));
    await fork().nativeUpdate(WebhookDelivery, { id: { $in: waiting.map((d) => d.id) } }, { state: 'failed' });
    await fork().nativeUpdate(Offer, { uuid: offer.uuid }, { state: 'FINALIZADA' });
  });

  it('reaches every row: past more live rows than one sweep reads, the next sweep goes on from where it stopped', async function () {
    this.timeout(60000);
    const estado: string[] = [];
    nock(GENERATOR_URL)
      .persist()
      .put('/estado')
      .reply(200, (_uri, body) => {
        estado.push(String((body as { detalle: unknown }).detalle));
        return 'ok';
      });
    const em = fork();
    const offer = await offerIn(em, gen, 'EN_CAMINO', prov);
    const conn = em.getConnection();
    const insert = (n: number, path: string, agoMs: number, label: string) =>
      conn.execute<Array<{ id: string }>>(
        `insert into webhook_delivery (id, offer_uuid, kind, event_id, url, method, request_headers, request_body, receiver_id, state, attempts, created_at)
         select gen_random_uuid(), ?, 'state', gen_random_uuid()::text, ?, 'PUT', '{"content-type": "application/json"}'::jsonb,
                jsonb_build_object('id', ?::text, 'estado', 'EN_CAMINO', 'detalle', ? || i), ?, 'pending', 0,
                now() - make_interval(secs => (? - i) / 1000.0)
           from generate_series(1, ?) as i
         returning id`,
        [offer.uuid, `${GENERATOR_URL}${path}`, offer.uuid, label, gen.user.id, agoMs, n],
      );
    const waiting = await insert(SWEEP_SCAN_PAGES * SWEEP_LIMIT + 50, '/slow', 900_000, 'waiting-');
    const lost = await insert(2, '/estado', 120_000, 'lost-');
    const queue = app.rt.queues.get('state-notification');
    await queue.addBulk(waiting.map(({ id }) => ({ name: 'notify', data: { deliveryId: id }, opts: { jobId: notifyJobId(id), delay: 3_600_000 } })));

    expect(await sweepOutbox(app.rt)).to.include({ notifications: 0 });
    expect(await sweepOutbox(app.rt)).to.include({ notifications: lost.length });
    await waitFor(() => estado.length === 2, 8000, 'the two lost notifications');
    expect([...estado].sort()).to.deep.equal(['lost-1', 'lost-2']);

    await Promise.all(waiting.map(({ id }) => queue.remove(notifyJobId(id))));
    await fork().nativeUpdate(WebhookDelivery, { offer: offer.uuid, state: 'pending' }, { state: 'failed' });
    await fork().nativeUpdate(Offer, { uuid: offer.uuid }, { state: 'FINALIZADA' });
  });

  it('retries a distribution whose job failed after the recipients were committed, sending only what was not sent', async function () {
    this.timeout(30000);
    const pushes: string[] = [];
    nock(CENTRAL_URL)
      .persist()
      .put('/oferta')
      .reply(200, (_uri, body) => {
        pushes.push(String((body as { uuid?: unknown; id?: unknown }).uuid ?? (body as { id?: unknown }).id));
        return 'ok';
      });
    const em = fork();
    const before = prov.user.apiEndpoint;
    await em.nativeUpdate('ApiUser', { id: prov.user.id }, { apiEndpoint: { ...before, oferta: '/oferta' } });
    const offer = await offerIn(em, gen, 'ABIERTA', undefined, { createdAt: ago(30_000) });
    const conn = em.getConnection();
    // The push claim (after the recipients' commit and the technicians' notice) fails, as a database blip would.
    await conn.execute(`create or replace function test_fail_push() returns trigger language plpgsql as $$
      begin raise exception 'push claim failed (test)'; end $$`);
    await conn.execute(`create trigger test_fail_push before update on webhook_delivery for each row
      when (old.kind = 'offer-push' and old.offer_uuid = '${offer.uuid}') execute function test_fail_push()`);
    try {
      const queue = app.rt.queues.get('offer-distribution');
      await app.rt.queues.add('offer-distribution', 'distribute', { offerUuid: offer.uuid }, { jobId: jobId('distribute', offer.uuid) });
      await waitFor(async () => (await queue.getJobState(jobId('distribute', offer.uuid))) === 'failed', 8000, 'the distribution to fail');
    } finally {
      await conn.execute('drop trigger if exists test_fail_push on webhook_delivery');
      await conn.execute('drop function if exists test_fail_push()');
    }
    const rows = await fork().find(OfferRecipient, { offer: offer.uuid }, { populate: ['delivery'] });
    expect(rows.map((r) => r.technicianIds)).to.deep.equal([[prov.technician.id]]);
    expect(rows[0].delivery?.state).to.equal('pending');
    const notifiedAt = rows[0].techniciansNotifiedAt;
    expect(notifiedAt).to.be.instanceOf(Date);
    expect(pushes).to.deep.equal([]);

    expect(await sweepOutbox(app.rt)).to.include({ distributions: 1 });
    await waitFor(async () => (await delivery(rows[0].delivery!.id)).state === 'ok', 8000, 'the push left unsent');
    expect(pushes).to.have.length(1);
    const again = await fork().find(OfferRecipient, { offer: offer.uuid });
    expect(again.map((r) => r.id)).to.deep.equal(rows.map((r) => r.id));
    // The technician was told before the failure and is not told again.
    expect(again[0].techniciansNotifiedAt?.getTime()).to.equal(notifiedAt!.getTime());
    expect(await sweepOutbox(app.rt)).to.include({ distributions: 0 });
    expect(pushes).to.have.length(1);

    await fork().nativeUpdate('ApiUser', { id: prov.user.id }, { apiEndpoint: before });
    await fork().nativeUpdate(Offer, { uuid: offer.uuid }, { state: 'NO_ASIGNADA' });
  });
});
