import { expect } from 'chai';
import nock from 'nock';
import { createHmac } from 'node:crypto';
import { Offer, OfferTransition, WebhookDelivery } from '../../src/db/entities/index.js';
import { ACCEPTANCE_MESSAGES } from '../../src/api/offers/acceptOffer.js';
import { jobId } from '../../src/queues/registry.js';
import { duplicateRedis, type Redis as RedisClient } from '../../src/queues/redis.js';
import { busChannel, perTechnician, type BusMessage } from '../../src/realtime/bus.js';
import { BOGOTA, makeApiUser, makeServiceType } from '../helpers/factories.js';
import { startCleanApp, startApp, type TestApp } from '../helpers/harness.js';
import {
  GENERATOR_URL,
  RESPUESTA_PATH,
  acceptanceBody,
  distributed,
  makeGenerator,
  makeResponder,
  offerBody,
  type Generator,
  type Responder,
} from '../helpers/offers.js';
import { waitFor } from '../helpers/wait.js';

interface Captured {
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

const LEGACY_NIT = '860034313';

describe('offer lifecycle with the workers running', () => {
  let app: TestApp;
  let gen: Generator;
  let sub: RedisClient;
  const events: BusMessage[] = [];
  let unmatched = 0;
  const onNoMatch = (req: { host?: string; hostname?: string }) => {
    if (`${req.hostname ?? ''} ${req.host ?? ''}`.includes(new URL(GENERATOR_URL).hostname)) unmatched++;
  };

  const fork = () => app.rt.orm.em.fork();
  const stateOf = async (uuid: string) => (await fork().findOne(Offer, { uuid }))?.state;
  const reach = (uuid: string, state: string, ms = 5000) => waitFor(async () => (await stateOf(uuid)) === state, ms, `${uuid} ${state}`);
  const deliveryOf = (uuid: string) => fork().findOne(WebhookDelivery, { offer: uuid });
  const settled = (uuid: string) =>
    waitFor(async () => {
      const d = await deliveryOf(uuid);
      return d && (d.state === 'ok' || d.state === 'failed') ? d : null;
    }, 5000, `delivery of ${uuid}`);
  const newOffer = async (g: Generator = gen) => {
    const body = offerBody();
    const res = await app.client.post('api/v3/oferta', { json: body, headers: { authorization: g.auth } });
    expect(res.statusCode).to.equal(200);
    // a central answers an offer once it has reached it (D20): the worker records the recipients first
    await distributed(app, body.uuid as string);
    return body.uuid as string;
  };
  const put = (body: unknown, key: string) =>
    app.client.put('api/v3/aceptacion', { json: body, headers: { 'x-apikey': key } }).then((r) => ({ code: r.statusCode, body: r.body }));
  /** The generator's endpoint: answers `status` once and keeps what it received. */
  const generatorEndpoint = (status: number, reply: string | Record<string, unknown> = 'OK', delayMs = 0) => {
    const got: Captured[] = [];
    const scope = nock(GENERATOR_URL)
      .put(RESPUESTA_PATH)
      .delay(delayMs)
      .reply(function (_uri, body) {
        got.push({ headers: this.req.headers, body: body as Record<string, unknown> });
        return [status, reply];
      });
    return { got, scope };
  };

  before(async () => {
    app = await startCleanApp({
      workers: true,
      env: {
        OFFER_RESPONSE_WINDOW_MS: '1000',
        OFFER_MAX_OPEN_MS: '3000',
        WEBHOOK_TIMEOUT_MS: '1000',
        GESTOR_ID: 'GESTOR-T',
        GESTOR_DNI: '900111222',
        LEGACY_CENTRAL_NIT: LEGACY_NIT,
        LEGACY_GESTOR_ID: 'LEGACY-T',
        LEGACY_GESTOR_DNI: '800999888',
      },
    });
    await makeServiceType(fork(), { id: 1 });
    gen = await makeGenerator(fork());
    // the run's Redis or, with REDIS_CLUSTER_NODES set, its cluster (.ci/run runs this suite on both)
    sub = duplicateRedis(app.rt.redis);
    await sub.subscribe(busChannel(app.rt.config.queuePrefix));
    sub.on('message', (_c, m: string) => events.push(...perTechnician(JSON.parse(m) as BusMessage)));
    nock.emitter.on('no match', onNoMatch);
  });
  afterEach(() => {
    expect(unmatched, 'requests to the generator nobody expected').to.equal(0);
    nock.cleanAll();
  });
  after(async () => {
    nock.emitter.removeListener('no match', onNoMatch);
    sub.disconnect();
    await app.close();
  });

  it('received → responses → the best selected at the deadline → one signed webhook with the exact body → ACEPTADA', async () => {
    const signed = await makeGenerator(fork(), { webhookSecret: 'shh-secret', apiKey: 'inbound-generator-key-0001', outboundKey: 'generator-key-1' });
    const a = await makeResponder(fork(), { rate: 5 });
    const b = await makeResponder(fork(), { rate: 3, position: { lat: BOGOTA.lat + 0.03, lng: BOGOTA.lng } });
    const endpoint = generatorEndpoint(200);
    const uuid = await newOffer(signed);
    expect((await put(acceptanceBody(uuid, a, { tiempoLlegadaSitio: 15 }), a.key)).code).to.equal(200);
    expect((await put(acceptanceBody(uuid, b, { tiempoLlegadaSitio: 9 }), b.key)).code).to.equal(200);
    expect(await stateOf(uuid)).to.equal('ABIERTA');

    await reach(uuid, 'ACEPTADA');
    const delivery = await settled(uuid);
    expect(delivery).to.include({ state: 'ok', statusCode: 200, attempts: 1, kind: 'acceptance' });
    expect(endpoint.got).to.have.length(1);
    const [{ headers, body }] = endpoint.got;
    expect(body).to.deep.equal({
      id: uuid,
      idGestor: 'GESTOR-T',
      dniGestor: '900111222',
      dniPrestador: b.central.nit,
      nombrePrestador: b.central.name,
      telefonoCentral: '+576015550000',
      latitudTecnico: String(BOGOTA.lat + 0.03),
      longitudTecnico: String(BOGOTA.lng),
      identificadorTecnico: b.technician.identifier,
      dniTecnico: b.technician.dni,
      telefonoTecnico: '+573000000000',
      tarifaEstimadaServicio: '0',
      tiempoLlegadaSitio: 9,
    });
    expect(headers['content-type']).to.equal('application/json');
    expect(headers['x-apikey']).to.equal('generator-key-1');
    const timestamp = String(headers['x-timestamp']);
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).to.be.lessThan(60);
    const raw = JSON.stringify(body);
    expect(Number(headers['content-length'])).to.equal(Buffer.byteLength(raw));
    expect(headers['x-signature']).to.equal(createHmac('sha256', 'shh-secret').update(`${timestamp}.${raw}`).digest('hex'));

    const offer = await fork().findOne(Offer, { uuid });
    expect(offer!.assignedCentral!.id).to.equal(b.central.id);
    expect(offer!.assignedTechnician!.id).to.equal(b.technician.id);
    expect((offer!.ranking as Array<{ position: number; centralId: number; time: number }>).map((r) => [r.position, r.centralId, r.time])).to.deep.equal([
      [1, b.central.id, 9],
      [2, a.central.id, 15],
    ]);
    const moves = await fork().find(OfferTransition, { offer: uuid }, { orderBy: { id: 'asc' } });
    expect(moves.map((m) => [m.fromState, m.toState, m.actor])).to.deep.equal([
      [null, 'ABIERTA', `api-user:${signed.user.username}`],
      ['ABIERTA', 'ACEPTADA', 'system:evaluation'],
    ]);
    const res = await app.client.get('api/v3/offer-responses', { searchParams: { uuid }, headers: { authorization: signed.auth } });
    expect((res.body as unknown as { data: { accepted: { time: number } } }).data.accepted.time).to.equal(9);

    const mine = await waitFor(() => {
      // the generator's events; offer.new goes to the technicians (distribution job) at its own pace
      const list = events.filter((e) => (e.data as { uuid?: string }).uuid === uuid && e.event !== 'offer.new').map((e) => e.event);
      return list.includes('offer.closed') ? list : null;
    }, 3000, 'events');
    expect(mine).to.deep.equal(['offer.response', 'offer.response', 'offer.state', 'offer.accepted', 'offer.closed']);
    const closed = events.find((e) => e.event === 'offer.closed' && (e.data as { uuid: string }).uuid === uuid)!;
    expect(closed.audience).to.deep.equal({ kind: 'offer', offerUuid: uuid, apiUserId: signed.user.id });
    expect(closed.data).to.deep.equal({ uuid, result: 'selected' });
  });

  it('a profile without webhookSecret or apiKey gets only the spec headers; the generator answers 500: INACTIVA', async () => {
    const plain = await makeGenerator(fork(), { apiKey: null });
    const r = await makeResponder(fork());
    const endpoint = generatorEndpoint(500, { error: 'no' });
    const uuid = await newOffer(plain);
    expect((await put(acceptanceBody(uuid, r), r.key)).code).to.equal(200);
    await reach(uuid, 'INACTIVA');
    const delivery = await settled(uuid);
    expect(delivery).to.include({ state: 'failed', statusCode: 500, attempts: 1, replyBody: '{"error":"no"}' });
    expect(endpoint.got).to.have.length(1);
    const { headers } = endpoint.got[0];
    expect(headers['content-type']).to.equal('application/json');
    expect(headers).to.not.have.any.keys('x-apikey', 'x-timestamp', 'x-signature');
    const moves = await fork().find(OfferTransition, { offer: uuid, toState: 'INACTIVA' });
    expect(moves.map((m) => [m.fromState, m.actor])).to.deep.equal([['ACEPTADA', 'system:webhook-dispatch']]);
  });

  it('the generator does not answer within WEBHOOK_TIMEOUT_MS: INACTIVA, the timeout recorded', async () => {
    const r = await makeResponder(fork());
    generatorEndpoint(200, 'late', 2500);
    const uuid = await newOffer();
    expect((await put(acceptanceBody(uuid, r), r.key)).code).to.equal(200);
    await reach(uuid, 'INACTIVA');
    const delivery = await settled(uuid);
    expect(delivery.state).to.equal('failed');
    expect(delivery.statusCode).to.equal(null);
    expect(delivery.error).to.contain('ETIMEDOUT');
  });

  it('no response → SIN_RESPUESTA; a late acceptance the generator confirms → 200 Oferta aceptada, ACEPTADA', async () => {
    const r = await makeResponder(fork());
    const uuid = await newOffer();
    await reach(uuid, 'SIN_RESPUESTA');
    const endpoint = generatorEndpoint(200);
    expect(await put(acceptanceBody(uuid, r, { tiempoLlegadaSitio: 11 }), r.key)).to.deep.equal({
      code: 200,
      body: { status: true, data: 'Oferta aceptada' },
    });
    expect(await stateOf(uuid)).to.equal('ACEPTADA');
    expect(endpoint.got).to.have.length(1);
    expect(endpoint.got[0].body).to.include({ id: uuid, dniPrestador: r.central.nit, tiempoLlegadaSitio: 11 });
  });

  it('no response → SIN_RESPUESTA; a late acceptance the generator rejects → 400 with its body, INACTIVA', async () => {
    const r = await makeResponder(fork());
    const uuid = await newOffer();
    await reach(uuid, 'SIN_RESPUESTA');
    generatorEndpoint(422, { status: false, msg: 'EL CLIENTE CANCELÓ' });
    expect(await put(acceptanceBody(uuid, r), r.key)).to.deep.equal({ code: 400, body: { status: false, msg: 'EL CLIENTE CANCELÓ' } });
    expect(await stateOf(uuid)).to.equal('INACTIVA');
  });

  it("own central: ASIGNADA at once, the webhook sent; the deadline's evaluation changes nothing", async () => {
    const owner = await makeApiUser(fork(), { apiKey: 'own-central-key' });
    const own = await makeResponder(fork(), { nit: gen.user.nit!, owner: owner.user, name: 'Central Propia' });
    const endpoint = generatorEndpoint(200);
    const uuid = await newOffer();
    expect(await put(acceptanceBody(uuid, own, { tiempoLlegadaSitio: 4 }), own.key)).to.deep.equal({
      code: 200,
      body: { status: true, data: ACCEPTANCE_MESSAGES.recorded },
    });
    expect(await stateOf(uuid)).to.equal('ASIGNADA');
    expect((await settled(uuid)).state).to.equal('ok');
    expect(endpoint.got[0].body).to.include({ dniPrestador: own.central.nit, nombrePrestador: 'Central Propia', tiempoLlegadaSitio: 4 });
    const evaluation = await app.rt.queues.get('offer-evaluation').getJob(jobId('evaluate', uuid));
    await waitFor(() => evaluation!.isCompleted(), 5000, 'the evaluation job');
    expect(await stateOf(uuid)).to.equal('ASIGNADA');
    expect(endpoint.got).to.have.length(1);
  });

  it('no response and nobody late: SIN_RESPUESTA, then EXPIRADA after OFFER_MAX_OPEN_MS', async () => {
    const uuid = await newOffer();
    await reach(uuid, 'EXPIRADA', 6000);
    const moves = await fork().find(OfferTransition, { offer: uuid }, { orderBy: { id: 'asc' } });
    expect(moves.map((m) => [m.fromState, m.toState])).to.deep.equal([
      [null, 'ABIERTA'],
      ['ABIERTA', 'SIN_RESPUESTA'],
      ['SIN_RESPUESTA', 'EXPIRADA'],
    ]);
  });

  it('the legacy central gets the legacy body: its gestor values, NIT with check digit, C-prefixed technician ids', async () => {
    const legacy: Responder = await makeResponder(fork(), { nit: LEGACY_NIT, name: 'Legado S.A.' });
    const endpoint = generatorEndpoint(200);
    const uuid = await newOffer();
    expect((await put(acceptanceBody(uuid, legacy, { tiempoLlegadaSitio: 5 }), legacy.key)).code).to.equal(200);
    await reach(uuid, 'ACEPTADA');
    await settled(uuid);
    expect(endpoint.got[0].body).to.deep.equal({
      id: uuid,
      idGestor: 'LEGACY-T',
      dniGestor: '800999888',
      dniPrestador: `${LEGACY_NIT}7`,
      nombrePrestador: 'Legado S.A.',
      telefonoCentral: '+576015550000',
      latitudTecnico: String(BOGOTA.lat + 0.01),
      longitudTecnico: String(BOGOTA.lng),
      identificadorTecnico: `C${legacy.technician.identifier}`,
      dniTecnico: `C${legacy.technician.dni}`,
      telefonoTecnico: '+573000000000',
      tarifaEstimadaServicio: '0',
      tiempoLlegadaSitio: 5,
    });
  });
});
