import { expect } from 'chai';
import nock from 'nock';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Offer, WebhookDelivery } from '../../src/db/entities/index.js';
import { nitCheckDigit } from '../../src/domain/centrals/nit.js';
import { ABANDONED_ERROR, dispatchAcceptance } from '../../src/domain/offers/selection/acceptanceNotification.js';
import { evaluateOffer, expireOffer } from '../../src/domain/offers/selection/evaluation.js';
import { jobId } from '../../src/queues/registry.js';
import { REPLY_STORED_CHARS } from '../../src/webhooks/dispatch.js';
import { sendWebhook } from '../../src/webhooks/send.js';
import { resetDb } from '../helpers/db.js';
import { makeServiceType } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { GENERATOR_URL, RESPUESTA_PATH, acceptanceBody, distributeTo, makeGenerator, makeResponder, offerBody, type Generator } from '../helpers/offers.js';

describe('NIT check digit', () => {
  it('follows the DIAN weights', () => {
    expect(nitCheckDigit('800197268')).to.equal(4);
    expect(nitCheckDigit('890903938')).to.equal(8);
    expect(nitCheckDigit('860034313')).to.equal(7);
    expect(nitCheckDigit('830114921')).to.equal(1);
    expect(() => nitCheckDigit('')).to.throw(RangeError);
  });
});

describe('sending a webhook', () => {
  afterEach(() => nock.cleanAll());

  it('follows no redirect: a 302 is the answer, not ok', async () => {
    const scope = nock(GENERATOR_URL).put('/hook').reply(302, '', { location: `${GENERATOR_URL}/elsewhere` });
    const out = await sendWebhook({ url: `${GENERATOR_URL}/hook`, body: { a: 1 } }, 1000);
    expect(out).to.include({ ok: false, statusCode: 302, error: null });
    expect(scope.isDone()).to.equal(true);
  });

  it('a refused connection is a failed answer with its reason', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const out = await sendWebhook({ url: `http://127.0.0.1:${port}/hook`, body: {} }, 1000);
    expect(out).to.include({ ok: false, statusCode: null, replyBody: null });
    expect(out.error).to.contain('ECONNREFUSED');
  });
});

describe('acceptance delivery: exactly once', () => {
  let app: TestApp;
  let gen: Generator;
  const fork = () => app.rt.orm.em.fork();
  /** An ACEPTADA offer with its pending acceptance delivery (no worker runs here). */
  const selected = async () => {
    const r = await makeResponder(fork());
    const body = offerBody();
    expect((await app.client.post('api/v3/oferta', { json: body, headers: { authorization: gen.auth } })).statusCode).to.equal(200);
    const uuid = body.uuid as string;
    await distributeTo(fork(), uuid, r); // D20: only a recipient answers
    expect((await app.client.put('api/v3/aceptacion', { json: acceptanceBody(uuid, r), headers: { 'x-apikey': r.key } })).statusCode).to.equal(200);
    expect(await evaluateOffer(app.rt, uuid)).to.equal('selected');
    const delivery = await fork().findOneOrFail(WebhookDelivery, { offer: uuid });
    expect(delivery.state).to.equal('pending');
    return { uuid, deliveryId: delivery.id };
  };

  before(async () => {
    app = await startApp({ env: { WEBHOOK_TIMEOUT_MS: '1000' } });
    await resetDb(app.rt.orm);
    await makeServiceType(fork(), { id: 1 });
    gen = await makeGenerator(fork());
  });
  afterEach(() => nock.cleanAll());
  after(async () => app.close());

  it('two senders of the same delivery: one request; the reply is stored truncated', async () => {
    const { uuid, deliveryId } = await selected();
    let calls = 0;
    nock(GENERATOR_URL)
      .put(RESPUESTA_PATH)
      .times(2)
      .reply(() => {
        calls++;
        return [200, 'x'.repeat(5000)];
      });
    const [a, b] = await Promise.all([dispatchAcceptance(app.rt, deliveryId), dispatchAcceptance(app.rt, deliveryId)]);
    expect(calls).to.equal(1);
    expect([a, b].filter((o) => o !== null)).to.have.length(1);
    const delivery = await fork().findOneOrFail(WebhookDelivery, { id: deliveryId });
    expect(delivery).to.include({ state: 'ok', attempts: 1, statusCode: 200 });
    expect(delivery.replyBody).to.have.length(REPLY_STORED_CHARS);
    expect(delivery.latencyMs).to.be.a('number');
    expect((await fork().findOneOrFail(Offer, { uuid })).state).to.equal('ACEPTADA');
    expect(await dispatchAcceptance(app.rt, deliveryId)).to.equal(null);
    expect(calls).to.equal(1);
  });

  it('a delivery claimed but never answered is failed after the webhook timeout, without sending again: INACTIVA', async () => {
    const { uuid, deliveryId } = await selected();
    await fork().nativeUpdate(WebhookDelivery, { id: deliveryId }, { state: 'sending', attempts: 1, sentAt: new Date() });
    const scope = nock(GENERATOR_URL).put(RESPUESTA_PATH).reply(200);
    expect(await dispatchAcceptance(app.rt, deliveryId)).to.equal(null);
    expect(scope.isDone()).to.equal(false);
    const delivery = await fork().findOneOrFail(WebhookDelivery, { id: deliveryId });
    expect(delivery).to.include({ state: 'failed', attempts: 1, error: ABANDONED_ERROR });
    expect((await fork().findOneOrFail(Offer, { uuid })).state).to.equal('INACTIVA');
  });

  it('a pending delivery whose job was lost is enqueued again by a later evaluation or expiry job', async () => {
    const { uuid, deliveryId } = await selected();
    const queue = app.rt.queues.get('webhook-dispatch');
    await (await queue.getJob(jobId('deliver', deliveryId)))!.remove();
    expect(await evaluateOffer(app.rt, uuid)).to.equal('nothing');
    expect((await queue.getJob(jobId('deliver', deliveryId)))?.data).to.deep.equal({ deliveryId });
    await (await queue.getJob(jobId('deliver', deliveryId)))!.remove();
    expect(await expireOffer(app.rt, uuid)).to.equal(false);
    expect((await queue.getJob(jobId('deliver', deliveryId)))?.data).to.deep.equal({ deliveryId });
  });
});
