import { expect } from 'chai';
import { loadConfig } from '../../config/index.js';
import { Offer, OfferTransition, WebhookDelivery } from '../../src/db/entities/index.js';
import { evaluateOffer, expireOffer, NotYetDue } from '../../src/domain/offers/selection/evaluation.js';
import { EVALUATION_LEAD_MS } from '../../src/domain/offers/create/schedule.js';
import { rankResponses } from '../../src/domain/offers/selection/ranking.js';
import { jobId } from '../../src/queues/registry.js';
import { resetDb } from '../helpers/db.js';
import { makeServiceType } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { acceptanceBody, distributeTo, makeGenerator, makeResponder, offerBody, type Generator } from '../helpers/offers.js';

describe('ranking (D2)', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
  const r = (id: number, timeMin: number, rate: number, distanceKm: number, second: number) => ({ id, timeMin, rate, distanceKm, updatedAt: at(second) });

  it('lowest time first; ties to the higher rate, then the shorter distance, then the earlier response', () => {
    const ranked = rankResponses([r(1, 12, 5, 1, 0), r(2, 8, 3, 9, 5), r(3, 8, 4, 9, 6), r(4, 8, 4, 2, 7), r(5, 8, 4, 2, 3)]);
    expect(ranked.map((x) => x.id)).to.deep.equal([5, 4, 3, 2, 1]);
  });
});

describe('evaluation and expiry', () => {
  let app: TestApp;
  let gen: Generator;
  const fork = () => app.rt.orm.em.fork();
  const newOffer = async () => {
    const body = offerBody();
    const res = await app.client.post('api/v3/oferta', { json: body, headers: { authorization: gen.auth } });
    expect(res.statusCode).to.equal(200);
    return body.uuid as string;
  };

  before(async () => {
    app = await startApp();
    await resetDb(app.rt.orm);
    await makeServiceType(fork(), { id: 1 });
    gen = await makeGenerator(fork());
  });
  after(async () => app.close());

  it('stores the ranking with each figure, and a second run does nothing', async () => {
    const a = await makeResponder(fork(), { rate: 5 });
    const b = await makeResponder(fork(), { rate: 4 });
    const uuid = await newOffer();
    await distributeTo(fork(), uuid, a, b); // D20: only a recipient answers
    for (const [r, minutes] of [[a, 10], [b, 10]] as const) {
      const res = await app.client.put('api/v3/aceptacion', { json: acceptanceBody(uuid, r, { tiempoLlegadaSitio: minutes }), headers: { 'x-apikey': r.key } });
      expect(res.statusCode).to.equal(200);
    }
    expect(await evaluateOffer(app.rt, uuid)).to.equal('selected');
    expect(await evaluateOffer(app.rt, uuid)).to.equal('nothing');
    const offer = await fork().findOne(Offer, { uuid });
    expect(offer!.state).to.equal('ACEPTADA');
    expect(offer!.ranking).to.have.length(2);
    const [first, second] = offer!.ranking as Array<Record<string, unknown>>;
    expect(first).to.include({ position: 1, centralId: a.central.id, technicianId: a.technician.id, time: 10, timeGiven: true, rate: 5, distance: 1.106 });
    expect(second).to.include({ position: 2, centralId: b.central.id, rate: 4 });
    expect(offer!.acceptedResponse).to.equal(first.responseId);
    expect(await fork().count(OfferTransition, { offer: uuid, toState: 'ACEPTADA' })).to.equal(1);
    expect(await fork().count(WebhookDelivery, { offer: uuid })).to.equal(1);
  });

  it('expiry moves only SIN_RESPUESTA to EXPIRADA, once', async () => {
    const open = await newOffer();
    expect(await expireOffer(app.rt, open)).to.equal(false);
    expect((await fork().findOne(Offer, { uuid: open }))!.state).to.equal('ABIERTA');
    expect(await evaluateOffer(app.rt, open)).to.equal('no-response');
    expect(await expireOffer(app.rt, open)).to.equal(true);
    expect(await expireOffer(app.rt, open)).to.equal(false);
    expect((await fork().findOne(Offer, { uuid: open }))!.state).to.equal('EXPIRADA');
  });

  it("the queue's job, run within its lead of the deadline (ISS32-11), waits on its own clock and closes at the deadline, never before", async () => {
    const uuid = await newOffer();
    const deadline = new Date(Date.now() + EVALUATION_LEAD_MS + 50);
    await fork().nativeUpdate(Offer, { uuid }, { deadlineAt: deadline });
    expect(await evaluateOffer(app.rt, uuid, null, { dueOnly: true })).to.equal('no-response');
    const moved = await fork().findOneOrFail(OfferTransition, { offer: uuid, toState: 'SIN_RESPUESTA' });
    expect(moved.at.getTime()).to.be.at.least(deadline.getTime());
  });

  it("the queue's job, run more than twice its lead before the deadline (promoted by hand), goes back to the queue until its lead", async () => {
    const uuid = await newOffer();
    const deadline = new Date(Date.now() + 10_000);
    await fork().nativeUpdate(Offer, { uuid }, { deadlineAt: deadline });
    const early = await evaluateOffer(app.rt, uuid, null, { dueOnly: true }).catch((err: unknown) => err);
    expect(early).to.be.instanceOf(NotYetDue);
    expect((early as NotYetDue).at.getTime()).to.equal(deadline.getTime() - EVALUATION_LEAD_MS);
    expect((await fork().findOneOrFail(Offer, { uuid })).state).to.equal('ABIERTA');
  });

  it('jobs for an offer that does not exist do nothing', async () => {
    expect(await evaluateOffer(app.rt, '00000000-0000-4000-8000-000000000000')).to.equal('nothing');
    expect(await expireOffer(app.rt, '00000000-0000-4000-8000-000000000000')).to.equal(false);
  });
});

describe('the default response window', () => {
  it('is 30000 ms in the configuration', () => {
    expect(loadConfig({}).offerResponseWindowMs).to.equal(30000);
  });

  it('is the delay of the evaluation job when OFFER_RESPONSE_WINDOW_MS is unset', async () => {
    const app = await startApp({ env: { OFFER_RESPONSE_WINDOW_MS: '' } });
    try {
      await resetDb(app.rt.orm);
      await makeServiceType(app.rt.orm.em.fork(), { id: 1 });
      const gen = await makeGenerator(app.rt.orm.em.fork());
      const body = offerBody();
      const res = await app.client.post('api/v3/oferta', { json: body, headers: { authorization: gen.auth } });
      expect(res.statusCode).to.equal(200);
      const job = await app.rt.queues.get('offer-evaluation').getJob(jobId('evaluate', body.uuid as string));
      const offer = await app.rt.orm.em.fork().findOne(Offer, { uuid: body.uuid as string });
      expect(offer!.deadlineAt!.getTime() - offer!.createdAt.getTime()).to.equal(30000);
      // the job's delay counts from its enqueue, a few ms after creation: due at the deadline less its lead (ISS32-11)
      expect(job?.opts.delay).to.be.within(29000 - EVALUATION_LEAD_MS, 30000 - EVALUATION_LEAD_MS);
      expect(job!.timestamp + job!.opts.delay!).to.be.closeTo(offer!.deadlineAt!.getTime() - EVALUATION_LEAD_MS, 20);
      await job!.remove();
      await (await app.rt.queues.get('offer-expiry').getJob(jobId('expire', body.uuid as string)))?.remove();
    } finally {
      await app.close();
    }
  });
});
