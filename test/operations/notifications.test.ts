import { expect } from 'chai';
import nock from 'nock';
import { randomUUID } from 'node:crypto';
import { Offer, WebhookDelivery } from '../../src/db/entities/index.js';
import { deliverStateNotification } from '../../src/domain/notifications/deliver.js';
import { notifyJobId } from '../../src/domain/notifications/enqueue.js';
import { lockOffer, type TransitionInput } from '../../src/domain/offers/lifecycle/stateMachine.js';
import { transition } from '../../src/domain/offers/lifecycle/moves.js';
import { sweepOutbox } from '../../src/domain/outbox/sweep.js';
import { jobId } from '../../src/queues/registry.js';
import { PRUNE_SCHEDULER_ID, SWEEP_SCHEDULER_ID, startSchedules } from '../../src/queues/schedules.js';
import { createDelivery } from '../../src/db/stores/deliveries.js';
import { MAX_RETRY_AFTER_MS, parseRetryAfter, sign } from '../../src/webhooks/send.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import {
  CENTRAL_URL,
  GENERATOR_URL,
  deliveriesOf,
  makeGenerator,
  makeProvider,
  offerIn,
  respond,
  startOps,
  WITH_STATE_ENDPOINT,
  type Body,
  type Generator,
  type Provider,
} from '../helpers/ops.js';
import { waitFor } from '../helpers/wait.js';

interface Call {
  body: Body;
  raw: string;
  headers: Record<string, string>;
  status: number;
  at: number;
}

type Reply = number | [number, Record<string, string>];

/** A receiver at base+path answering `replies` in turn, then 200; records every call. */
function receiver(base: string, path: string, replies: Reply[] = []): Call[] {
  const calls: Call[] = [];
  nock(base)
    .persist()
    .put(path)
    .reply(function (_uri, body) {
      const reply = replies[calls.length] ?? 200;
      const [status, headers] = Array.isArray(reply) ? reply : [reply, {}];
      const raw = typeof body === 'string' ? body : JSON.stringify(body);
      calls.push({ body: JSON.parse(raw) as Body, raw, headers: this.req.headers as Record<string, string>, status, at: Date.now() });
      return [status, status === 200 ? 'ok' : 'try later', headers];
    });
  return calls;
}

describe('state notifications (D12)', () => {
  let app: TestApp;
  let gen: Generator;
  let prov: Provider;
  let loser: Provider;

  before(async () => {
    const suite = await startOps({ workers: true, env: { NOTIFICATION_ATTEMPTS: '4', SWEEP_INTERVAL_MS: '30000' }, provider: { name: 'Grúas Norte' } });
    ({ app, gen, prov } = suite);
    loser = await makeProvider(suite.em, { name: 'Grúas Sur', novedad: '/sur/novedad' });
  });
  afterEach(() => nock.cleanAll());
  after(async () => app.close());

  const progress = (uuid: string, estado: string, p = prov) =>
    app.client.put('api/v3/estado-servicio', { headers: { 'x-apikey': p.apiKey }, json: { id: uuid, estado } });
  const settled = (uuid: string, n: number) =>
    waitFor(async () => {
      const ds = await deliveriesOf(app.rt.orm.em, uuid);
      return ds.length === n && ds.every((d) => d.state === 'ok' || d.state === 'failed') ? ds : null;
    }, 8000, `${n} settled deliveries of ${uuid}`);

  it('PUTs {id, estado, fecha, detalle} with x-event-id to url_api + estado and records the answer', async () => {
    const calls = receiver(GENERATOR_URL, '/estado');
    // a service without a code yet (rows made by hand): the spec's four fields only
    const offer = await offerIn(app.rt.orm.em.fork(), gen, 'ASIGNADA', prov);
    expect((await progress(offer.uuid, 'EN_CAMINO')).statusCode).to.equal(200);
    const [d] = await settled(offer.uuid, 1);
    expect(calls).to.have.length(1);
    expect(calls[0].body).to.have.keys('id', 'estado', 'fecha', 'detalle');
    expect(calls[0].body).to.include({ id: offer.uuid, estado: 'EN_CAMINO', detalle: 'EL TÉCNICO VA EN CAMINO AL SITIO DEL SERVICIO' });
    expect(new Date(String(calls[0].body.fecha)).toISOString()).to.equal(calls[0].body.fecha);
    expect(calls[0].headers['x-event-id']).to.equal(d.eventId);
    expect(calls[0].headers['content-type']).to.equal('application/json');
    expect(calls[0].headers).to.not.have.any.keys('x-signature', 'x-timestamp', 'x-apikey');
    expect(d).to.include({ kind: 'state', state: 'ok', attempts: 1, statusCode: 200, replyBody: 'ok', method: 'PUT' });
    expect(d.latencyMs).to.be.a('number');
    expect(d.completedAt).to.be.instanceOf(Date);
  });

  it('retries with exponential backoff after 500s, then succeeds, with the same x-event-id', async () => {
    const calls = receiver(GENERATOR_URL, '/estado', [500, 500]);
    const offer = await offerIn(app.rt.orm.em.fork(), gen, 'ASIGNADA', prov);
    await progress(offer.uuid, 'EN_CAMINO');
    const [d] = await settled(offer.uuid, 1);
    expect(calls.map((c) => c.status)).to.deep.equal([500, 500, 200]);
    expect(new Set(calls.map((c) => c.headers['x-event-id'])).size).to.equal(1);
    expect(d).to.include({ state: 'ok', attempts: 3, statusCode: 200 });
    const job = await app.rt.queues.get('state-notification').getJob(notifyJobId(d.id));
    expect(job?.opts.attempts).to.equal(4);
    expect(job?.opts.backoff).to.deep.equal({ type: 'exponential', delay: app.rt.config.notificationBackoffMs });
  });

  it('gives a delivery up after NOTIFICATION_ATTEMPTS tries and records it failed', async () => {
    const calls = receiver(GENERATOR_URL, '/estado', [500, 502, 500, 504, 500]);
    const offer = await offerIn(app.rt.orm.em.fork(), gen, 'ASIGNADA', prov);
    await progress(offer.uuid, 'EN_CAMINO');
    const [d] = await settled(offer.uuid, 1);
    expect(d).to.include({ state: 'failed', attempts: 4, statusCode: 504, replyBody: 'try later' });
    expect(calls).to.have.length(4);
  });

  it('honours Retry-After on a 429 before trying again', async () => {
    const calls = receiver(GENERATOR_URL, '/estado', [[429, { 'Retry-After': '1' }]]);
    const offer = await offerIn(app.rt.orm.em.fork(), gen, 'ASIGNADA', prov);
    await progress(offer.uuid, 'EN_CAMINO');
    const [d] = await settled(offer.uuid, 1);
    expect(calls.map((c) => c.status)).to.deep.equal([429, 200]);
    // The backoff alone would retry after NOTIFICATION_BACKOFF_MS (100 ms in tests); Retry-After asks for 1 s.
    expect(calls[1].at - calls[0].at).to.be.at.least(950);
    expect(d).to.include({ state: 'ok', attempts: 2 });
  });

  it('delivers in transition order: a later notification waits while an earlier one to the same receiver is failing', async () => {
    const calls = receiver(GENERATOR_URL, '/estado', [503, 500]);
    const offer = await offerIn(app.rt.orm.em.fork(), gen, 'ASIGNADA', prov);
    await progress(offer.uuid, 'EN_CAMINO');
    await progress(offer.uuid, 'EN_SITIO');
    await settled(offer.uuid, 2);
    expect(calls.map((c) => [c.body.estado, c.status])).to.deep.equal([
      ['EN_CAMINO', 503],
      ['EN_CAMINO', 500],
      ['EN_CAMINO', 200],
      ['EN_SITIO', 200],
    ]);
  });

  it('a try behind an unfinished earlier delivery waits, and one for a finished delivery is skipped, neither claiming the row', async () => {
    // rows written by hand, no job enqueued: only this test's calls try them
    const em = app.rt.orm.em.fork();
    const offer = await offerIn(em, gen, 'ASIGNADA', prov);
    const row = (estado: string) =>
      createDelivery(em, { offer, kind: 'state', receiver: gen.user, url: `${GENERATOR_URL}/estado`, body: { id: offer.uuid, estado }, eventHeader: true });
    const first = row('EN_CAMINO');
    await em.flush();
    const second = row('EN_SITIO');
    await em.flush();
    expect(await deliverStateNotification(app.rt, second.id)).to.deep.equal({ kind: 'waiting', ms: app.rt.config.notificationBackoffMs });
    await em.nativeUpdate(WebhookDelivery, { id: { $in: [first.id, second.id] } }, { state: 'ok' });
    expect(await deliverStateNotification(app.rt, second.id)).to.deep.equal({ kind: 'skipped' });
    const rows = await deliveriesOf(app.rt.orm.em, offer.uuid);
    expect(rows.map((d) => [d.state, d.attempts])).to.deep.equal([
      ['ok', 0],
      ['ok', 0],
    ]);
  });

  it("signs with x-timestamp and x-signature (HMAC-SHA256 of '<timestamp>.<raw body>') and sends the receiver's x-apikey", async () => {
    const secretGen = await makeGenerator(app.rt.orm.em.fork(), { ...WITH_STATE_ENDPOINT, webhookSecret: 'whsec-test', apiKey: 'inbound-generator-key-0001', outboundKey: 'generator-key-1' });
    const calls = receiver(GENERATOR_URL, '/estado');
    const offer = await offerIn(app.rt.orm.em.fork(), secretGen, 'ASIGNADA', prov);
    await progress(offer.uuid, 'EN_CAMINO');
    await settled(offer.uuid, 1);
    const { headers, raw } = calls[0];
    expect(headers['x-apikey']).to.equal('generator-key-1');
    expect(headers['x-timestamp']).to.match(/^\d{10}$/);
    expect(Math.abs(Number(headers['x-timestamp']) - Date.now() / 1000)).to.be.lessThan(30);
    expect(headers['x-signature']).to.equal(sign('whsec-test', headers['x-timestamp'], raw));
  });

  it("tells the central of a cancellation at its novedad endpoint, with the central's own key", async () => {
    const central = receiver(CENTRAL_URL, '/novedad');
    const generator = receiver(GENERATOR_URL, '/estado');
    const offer = await offerIn(app.rt.orm.em.fork(), gen, 'EN_CAMINO', prov);
    const res = await app.client.post('api/v3/cancelacion', { headers: { authorization: gen.auth }, json: { uuid: offer.uuid, motivo: 'Cliente resolvió' } });
    expect(res.statusCode).to.equal(200);
    await settled(offer.uuid, 2);
    expect(central).to.have.length(1);
    expect(central[0].body).to.include({ id: offer.uuid, estado: 'CANCELADA', detalle: 'EL GENERADOR CANCELÓ EL SERVICIO. MOTIVO: Cliente resolvió' });
    expect(central[0].headers['x-apikey']).to.equal(prov.outboundKey);
    expect(central[0].headers['x-apikey'], 'never the inbound key (D24)').to.not.equal(prov.apiKey);
    expect(generator.map((c) => c.body.estado)).to.deep.equal(['CANCELADA']);
  });

  it('a whole service: ACEPTADA → asignacion → EN_CAMINO → EN_SITIO → finalize reaches the generator in order', async () => {
    const calls = receiver(GENERATOR_URL, '/estado');
    const central = receiver(CENTRAL_URL, '/novedad');
    const offer = await offerIn(app.rt.orm.em.fork(), gen, 'ACEPTADA', prov);
    const auth = { authorization: gen.auth };
    expect((await app.client.post('api/v3/asignacion', { headers: auth, json: { uuid: offer.uuid } })).statusCode).to.equal(200);
    expect((await progress(offer.uuid, 'EN_CAMINO')).statusCode).to.equal(200);
    expect((await progress(offer.uuid, 'EN_SITIO')).statusCode).to.equal(200);
    expect((await app.client.post('api/v3/finalize', { headers: auth, json: { uuid: offer.uuid } })).statusCode).to.equal(200);
    // four to the generator, and the winning central's ASIGNADA novelty (D20)
    const ds = await settled(offer.uuid, 5);
    expect(ds.every((d) => d.state === 'ok')).to.equal(true);
    expect(calls.map((c) => c.body.estado)).to.deep.equal(['ASIGNADA', 'EN_CAMINO', 'EN_SITIO', 'FINALIZADA']);
    expect(central.map((c) => c.body.estado)).to.deep.equal(['ASIGNADA']);
    expect(new Set(calls.map((c) => c.headers['x-event-id'])).size).to.equal(4);
    // D16: the codigoServicio the assignment gave, in every state notification from ASIGNADA on
    const { codigoServicio } = await app.rt.orm.em.fork().findOneOrFail(Offer, offer.uuid);
    expect(codigoServicio).to.match(/^SV-/);
    expect(calls.map((c) => c.body.codigoServicio)).to.deep.equal([codigoServicio, codigoServicio, codigoServicio, codigoServicio]);
  });

  it('tells the centrals that lost at selection, and everyone on INACTIVA', async () => {
    const north = receiver(CENTRAL_URL, '/novedad');
    const south = receiver(CENTRAL_URL, '/sur/novedad');
    const generator = receiver(GENERATOR_URL, '/estado');
    const em = app.rt.orm.em.fork();
    const offer = await offerIn(em, gen, 'ABIERTA');
    const winning = await respond(em, offer, prov);
    await respond(em, offer, loser);
    const move = async (input: TransitionInput, apply: (o: Offer) => void = () => undefined) => {
      // the transition declares its own notifications' enqueue, run after the commit
      await app.rt.orm.em.fork().transactional(async (tx) => {
        const o = await lockOffer(tx, offer.uuid);
        apply(o as Offer);
        return transition(tx, o as Offer, input);
      });
    };
    await move({ to: 'ACEPTADA', by: 'evaluacion', actor: 'system:evaluate' }, (o) => {
      o.acceptedResponse = winning.id;
    });
    await settled(offer.uuid, 1);
    expect(south.map((c) => c.body.estado)).to.deep.equal(['NO_ASIGNADA']);
    expect(String(south[0].body.detalle)).to.contain('OTRA CENTRAL');
    expect(north).to.have.length(0);
    expect(generator).to.have.length(0);
    await move({ to: 'INACTIVA', by: 'webhook-rechazado', actor: 'system:deliver' });
    await settled(offer.uuid, 4);
    expect(generator.map((c) => c.body.estado)).to.deep.equal(['INACTIVA']);
    expect(north.map((c) => c.body.estado)).to.deep.equal(['NO_ASIGNADA']);
    expect(south.map((c) => c.body.estado)).to.deep.equal(['NO_ASIGNADA', 'NO_ASIGNADA']);
  });

  describe('outbox sweeper', () => {
    it('is no longer a repeatable job in Redis (the reconcile runs it, D21): the worker role removes the old scheduler', async () => {
      const queue = app.rt.queues.get('state-notification');
      await queue.upsertJobScheduler(SWEEP_SCHEDULER_ID, { every: 60_000 }, { name: 'sweep', data: {} });
      await startSchedules(app.rt);
      expect(await queue.getJobScheduler(SWEEP_SCHEDULER_ID)).to.equal(undefined);
      expect((await queue.getJobScheduler(PRUNE_SCHEDULER_ID))?.name).to.equal('prune');
    });

    it('re-enqueues a delivery left pending (lost enqueue) and leaves one whose job is still queued', async () => {
      const calls = receiver(GENERATOR_URL, '/lost');
      const em = app.rt.orm.em.fork();
      const offer = await offerIn(em, gen, 'EN_CAMINO', prov);
      const old = new Date(Date.now() - 120_000);
      const make = (eventId: string, path: string) =>
        em.create(WebhookDelivery, {
          id: randomUUID(),
          offer,
          kind: 'state',
          eventId,
          url: `${GENERATOR_URL}${path}`,
          method: 'PUT',
          requestHeaders: { 'content-type': 'application/json', 'x-event-id': eventId },
          requestBody: { id: offer.uuid, estado: 'EN_CAMINO', fecha: old.toISOString(), detalle: 'x' },
          // no receiver profile to read a current URL from: each goes to its own row's URL
          receiver: null,
          state: 'pending',
          attempts: 0,
          createdAt: old,
        });
      const lost = make(randomUUID(), '/lost');
      const queued = make(randomUUID(), '/queued');
      await em.flush();
      await app.rt.queues.add('state-notification', 'notify', { deliveryId: queued.id }, { jobId: notifyJobId(queued.id), delay: 600_000 });
      const swept = await sweepOutbox(app.rt);
      expect(swept.notifications).to.equal(1);
      await waitFor(async () => (await app.rt.orm.em.fork().findOneOrFail(WebhookDelivery, lost.id)).state === 'ok', 8000, 'the lost delivery');
      expect(calls.map((c) => c.headers['x-event-id'])).to.deep.equal([lost.eventId]);
      expect((await app.rt.orm.em.fork().findOneOrFail(WebhookDelivery, queued.id)).state).to.equal('pending');
      await app.rt.queues.get('state-notification').remove(notifyJobId(queued.id));
      await app.rt.orm.em.fork().nativeUpdate(WebhookDelivery, { id: queued.id }, { state: 'failed' });
    });

    it('enqueues the evaluation of an open offer past its deadline and the expiry of an unanswered one, once', async () => {
      // Its own queue prefix and no workers: the jobs stay where the sweeper put them.
      const quiet = await startApp({ env: { QUEUE_PREFIX: `${app.rt.config.queuePrefix}_sweep` } });
      try {
        const em = quiet.rt.orm.em.fork();
        const past = new Date(Date.now() - 120_000);
        const open = await offerIn(em, gen, 'ABIERTA', undefined, { deadlineAt: past });
        const unanswered = await offerIn(em, gen, 'SIN_RESPUESTA', undefined, { expiresAt: past });
        await offerIn(em, gen, 'ABIERTA');
        const first = await sweepOutbox(quiet.rt);
        expect(first).to.deep.include({ evaluations: 1, expirations: 1 });
        const queue = quiet.rt.queues.get('offer-evaluation');
        expect((await queue.getJob(jobId('evaluate', open.uuid)))?.data).to.deep.equal({ offerUuid: open.uuid });
        expect((await quiet.rt.queues.get('offer-expiry').getJob(jobId('expire', unanswered.uuid)))?.data).to.deep.equal({ offerUuid: unanswered.uuid });
        expect(await sweepOutbox(quiet.rt)).to.deep.include({ evaluations: 0, expirations: 0 });
      } finally {
        await quiet.close();
      }
    });
  });
});

describe('state notifications waiting for an earlier one', () => {
  it('go as soon as the earlier one is delivered, not at the end of their wait', async () => {
    // A 60 s wait: only the wake-up on completion can deliver the second within the test's deadline.
    const app = await startApp({
      workers: true,
      env: { NOTIFICATION_BACKOFF_MS: '60000', QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_wake`, SWEEP_INTERVAL_MS: '0' },
    });
    try {
      const em = app.rt.orm.em.fork();
      const gen = await makeGenerator(em, WITH_STATE_ENDPOINT);
      const prov = await makeProvider(em);
      const calls: string[] = [];
      nock(GENERATOR_URL)
        .persist()
        .put('/estado')
        .delay(300)
        .reply(200, (_uri, body) => {
          calls.push(String((typeof body === 'string' ? (JSON.parse(body) as Body) : (body as Body)).estado));
          return 'ok';
        });
      const offer = await offerIn(em, gen, 'ASIGNADA', prov);
      for (const estado of ['EN_CAMINO', 'EN_SITIO']) {
        await app.client.put('api/v3/estado-servicio', { headers: { 'x-apikey': prov.apiKey }, json: { id: offer.uuid, estado } });
      }
      await waitFor(async () => (await deliveriesOf(app.rt.orm.em, offer.uuid)).filter((d) => d.state === 'ok').length === 2, 8000, 'both deliveries');
      expect(calls).to.deep.equal(['EN_CAMINO', 'EN_SITIO']);
    } finally {
      nock.cleanAll();
      await app.close();
    }
  });
});

describe('Retry-After and signatures', () => {
  it('reads Retry-After as seconds or an HTTP date, capped, null when unreadable', () => {
    const now = Date.parse('2026-11-21T10:00:00Z');
    expect(parseRetryAfter('120', now)).to.equal(120_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:30 GMT', now)).to.equal(30_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 09:00:00 GMT', now)).to.equal(0);
    expect(parseRetryAfter('999999', now)).to.equal(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('soon', now)).to.equal(null);
    expect(parseRetryAfter(undefined, now)).to.equal(null);
  });

  it('signs <timestamp>.<raw body> with HMAC-SHA256 in hex', () => {
    // printf '%s' '1700000000.{"a":1}' | openssl dgst -sha256 -hmac key
    expect(sign('key', '1700000000', '{"a":1}')).to.equal('a438e398bfafc57e4396bb7fc2304422f0f768e965d073ca313cb52e22e6ad03');
  });
});
