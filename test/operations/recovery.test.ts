import { expect } from 'chai';
import nock from 'nock';
import { Offer, OfferRecipient, WebhookDelivery } from '../../src/db/entities/index.js';
import { planAcceptanceNotification } from '../../src/domain/offers/selection/acceptanceNotification.js';
import { sweepOutbox } from '../../src/domain/outbox/sweep.js';
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

  it('distributes an open offer whose distribution job was lost; leaves one already distributed and a new one', async () => {
    const em = fork();
    const lost = await offerIn(em, gen, 'ABIERTA', undefined, { createdAt: ago(30_000) });
    const distributed = await offerIn(em, gen, 'ABIERTA', undefined, { createdAt: ago(30_000) });
    em.create(OfferRecipient, { offer: distributed, kind: 'central', central: prov.central.id, channel: 'none', createdAt: new Date() });
    await em.flush();
    const fresh = await offerIn(em, gen, 'ABIERTA');

    expect(await sweepOutbox(app.rt)).to.include({ distributions: 1 });
    const recipients = await waitFor(async () => {
      const rows = await fork().find(OfferRecipient, { offer: lost.uuid }, { orderBy: { kind: 'asc' } });
      return rows.length === 2 ? rows : null;
    }, 8000, 'the lost distribution');
    expect(recipients.map((r) => [r.kind, r.central.id, r.technician?.id ?? null])).to.deep.equal([
      ['central', prov.central.id, null],
      ['technician', prov.central.id, prov.technician.id],
    ]);
    expect(await fork().count(OfferRecipient, { offer: { $in: [distributed.uuid, fresh.uuid] } })).to.equal(1);
    // Distributed: nothing left to repair.
    expect(await sweepOutbox(app.rt)).to.include({ distributions: 0 });

    await fork().nativeUpdate(Offer, { uuid: { $in: [lost.uuid, distributed.uuid, fresh.uuid] } }, { state: 'NO_ASIGNADA' });
  });
});
