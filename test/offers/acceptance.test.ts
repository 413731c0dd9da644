import type { MikroORM } from '@mikro-orm/postgresql';
import { expect } from 'chai';
import nock from 'nock';
import { randomUUID } from 'node:crypto';
import { Offer, OfferResponse, OfferTransition, WebhookDelivery, Technician } from '../../src/db/entities/index.js';
import { invoke } from '../../src/api/invoke.js';
import { ACCEPTANCE_MESSAGES } from '../../src/api/offers/acceptOffer.js';
import { evaluateOffer } from '../../src/domain/offers/selection/evaluation.js';
import type { OfferState } from '../../src/domain/offers/lifecycle/states.js';
import type { Runtime } from '../../src/domain/ports.js';
import { jobId } from '../../src/queues/registry.js';
import { resetDb } from '../helpers/db.js';
import { BOGOTA, makeApiUser, makeServiceType, makeTechnician } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import {
  GENERATOR_URL,
  RESPUESTA_PATH,
  acceptanceBody,
  makeGenerator,
  distributeTo,
  makeResponder,
  offerBody,
  type Generator,
  type Responder,
} from '../helpers/offers.js';
import { waitFor } from '../helpers/wait.js';

interface Reply {
  status: boolean;
  data: unknown;
}

describe('PUT /aceptacion', () => {
  let app: TestApp;
  let gen: Generator;

  const put = (body: unknown, key: string) =>
    app.client.put('api/v3/aceptacion', { json: body, headers: { 'x-apikey': key } }).then((r) => ({ code: r.statusCode, body: r.body as unknown as Reply }));
  /** A new offer, distributed to the centrals `to` (D20: only a recipient answers it). */
  const newOffer = async (g: Generator = gen, ...to: Responder[]) => {
    const body = offerBody();
    const res = await app.client.post('api/v3/oferta', { json: body, headers: { authorization: g.auth } });
    expect(res.statusCode).to.equal(200);
    if (to.length) await distributeTo(fork(), body.uuid as string, ...to);
    return body.uuid as string;
  };
  const fork = () => app.rt.orm.em.fork();
  const load = (uuid: string) => fork().findOne(Offer, { uuid }, { populate: ['assignedCentral', 'assignedTechnician'] });
  const setState = (uuid: string, state: OfferState) => fork().nativeUpdate(Offer, { uuid }, { state });
  const responder = () => makeResponder(fork());

  before(async () => {
    app = await startApp();
    await resetDb(app.rt.orm);
    await makeServiceType(fork(), { id: 1 });
    gen = await makeGenerator(fork());
  });
  afterEach(() => nock.cleanAll());
  after(async () => app.close());

  describe('checks, in the order of D4', () => {
    it('401 in the key envelope without a key', async () => {
      const res = await app.client.put('api/v3/aceptacion', { json: {} });
      expect(res.statusCode).to.equal(401);
      expect(res.body).to.include({ status: false, msg: 'No se ha brindado la clave de acceso.' });
    });

    it('1. the body: 400 {status:false, data} naming the field', async () => {
      const r = await responder();
      const uuid = randomUUID();
      const cases: Array<[unknown, string]> = [
        [{ dniPrestador: '1', dniTecnico: '2' }, "EL CAMPO 'id' ES REQUERIDO"],
        [{ id: uuid, dniTecnico: '2' }, "EL CAMPO 'dniPrestador' ES REQUERIDO"],
        [{ id: uuid, dniPrestador: '1' }, "EL CAMPO 'dniTecnico' ES REQUERIDO"],
        [{ id: 'x', dniPrestador: '1', dniTecnico: '2' }, "EL CAMPO 'id' DEBE SER EL UUID DE LA OFERTA"],
        [{ id: uuid, dniPrestador: '', dniTecnico: '2' }, "EL CAMPO 'dniPrestador' DEBE SER UN TEXTO NO VACÍO DE HASTA 255 CARACTERES"],
        [{ id: uuid, dniPrestador: '1', dniTecnico: '2', tiempoLlegadaSitio: -1 }, ACCEPTANCE_MESSAGES.badTime],
        [{ id: uuid, dniPrestador: '1', dniTecnico: '2', tiempoLlegadaSitio: '10' }, ACCEPTANCE_MESSAGES.badTime],
        [{ id: uuid, dniPrestador: '1', dniTecnico: '2', latitudTecnico: 'norte' }, "EL CAMPO 'latitudTecnico' DEBE SER UNA COORDENADA NUMÉRICA"],
        [{ id: uuid, dniPrestador: '1', dniTecnico: '2', longitudTecnico: '-200' }, "EL CAMPO 'longitudTecnico' DEBE ESTAR ENTRE -180 Y 180"],
        [[1], ACCEPTANCE_MESSAGES.notAnObject],
      ];
      for (const [body, data] of cases) {
        const res = await put(body, r.key);
        expect(res.code, JSON.stringify(body)).to.equal(400);
        expect(res.body).to.deep.equal({ status: false, data });
      }
    });

    it("2. the key's user must own the central named by dniPrestador: 403 (checked before the offer)", async () => {
      const a = await responder();
      const b = await responder();
      const uuid = await newOffer();
      const expected = { code: 403, body: { status: false, data: 'LA CLAVE DE ACCESO NO CORRESPONDE AL PRESTADOR' } };
      expect(await put(acceptanceBody(uuid, b), a.key)).to.deep.equal(expected);
      expect(await put({ ...acceptanceBody(uuid, a), dniPrestador: '123' }, a.key)).to.deep.equal(expected);
      expect(await put(acceptanceBody(randomUUID(), b), a.key)).to.deep.equal(expected);
    });

    it('3. the offer: 404 Oferta no encontrada (checked before the technician)', async () => {
      const r = await responder();
      const expected = { code: 404, body: { status: false, data: 'Oferta no encontrada' } };
      expect(await put(acceptanceBody(randomUUID(), r), r.key)).to.deep.equal(expected);
      expect(await put({ ...acceptanceBody(randomUUID(), r), dniTecnico: 'nadie' }, r.key)).to.deep.equal(expected);
    });

    it("4. the technician must belong to that central: 404 NO SE ENCONTRÓ EL TÉCNICO (checked before the generator's profile)", async () => {
      const a = await responder();
      const b = await responder();
      const expected = { code: 404, body: { status: false, data: 'NO SE ENCONTRÓ EL TÉCNICO' } };
      const uuid = await newOffer();
      expect(await put({ ...acceptanceBody(uuid, a), dniTecnico: b.technician.dni }, a.key)).to.deep.equal(expected);
      const bare = await makeGenerator(fork(), { urlApi: null });
      const bareOffer = await newOffer(bare);
      expect(await put({ ...acceptanceBody(bareOffer, a), dniTecnico: 'nadie' }, a.key)).to.deep.equal(expected);
    });

    it("5. the generator's profile needs url_api and api_endpoint.respuesta: 404 API GENERADOR NO ENCONTRADO (checked before the state)", async () => {
      const r = await responder();
      const expected = { code: 404, body: { status: false, data: 'API GENERADOR NO ENCONTRADO' } };
      for (const o of [{ urlApi: null }, { apiEndpoint: { estado: '/estado' } }]) {
        const g = await makeGenerator(fork(), o);
        const uuid = await newOffer(g);
        await setState(uuid, 'ACEPTADA');
        expect(await put(acceptanceBody(uuid, r), r.key)).to.deep.equal(expected);
      }
    });

    it('6. ACEPTADA or later: 400 Oferta ya aceptada; closed states: 400 naming the state', async () => {
      const r = await responder();
      for (const state of ['ACEPTADA', 'ASIGNADA', 'EN_CAMINO', 'EN_SITIO'] as const) {
        const uuid = await newOffer();
        await setState(uuid, state);
        expect(await put(acceptanceBody(uuid, r), r.key)).to.deep.equal({ code: 400, body: { status: false, data: 'Oferta ya aceptada' } });
      }
      for (const state of ['NO_ASIGNADA', 'CANCELADA', 'INACTIVA', 'EXPIRADA', 'FINALIZADA'] as const) {
        const uuid = await newOffer();
        await setState(uuid, state);
        expect(await put(acceptanceBody(uuid, r), r.key)).to.deep.equal({
          code: 400,
          body: { status: false, data: `LA OFERTA NO PUEDE SER ACEPTADA: SU ESTADO ES ${state}` },
        });
      }
      expect(await fork().count(OfferResponse, { central: r.central.id })).to.equal(0);
    });

    it('D20, after the state: 400 {status:false, data} for an offer that never reached the central, a busy technician, an implausible arrival; nothing recorded', async () => {
      const r = await responder();
      const never = await newOffer();
      expect(await put(acceptanceBody(never, r, { tiempoLlegadaSitio: 10 }), r.key)).to.deep.equal({ code: 400, body: { status: false, data: ACCEPTANCE_MESSAGES.notARecipient } });
      const uuid = await newOffer(gen, r);
      // the technician is about 16 km away by the coordinates given: at least 8 minutes at 120 km/h
      const soon = { tiempoLlegadaSitio: 7, latitudTecnico: '4.80', longitudTecnico: String(BOGOTA.lng) };
      expect(await put(acceptanceBody(uuid, r, soon), r.key)).to.deep.equal({ code: 400, body: { status: false, data: ACCEPTANCE_MESSAGES.implausibleArrival } });
      expect(ACCEPTANCE_MESSAGES.implausibleArrival).to.equal('TIEMPO DE LLEGADA NO PLAUSIBLE');
      const held = await newOffer();
      await fork().nativeUpdate(Technician, { id: r.technician.id }, { busyOfferUuid: held });
      expect(await put(acceptanceBody(uuid, r, { tiempoLlegadaSitio: 10 }), r.key)).to.deep.equal({
        code: 400,
        body: { status: false, data: 'EL TÉCNICO TIENE OTRO SERVICIO EN CURSO' },
      });
      expect(await fork().count(OfferResponse, { offer: { $in: [never, uuid] } })).to.equal(0);
      expect(ACCEPTANCE_MESSAGES.notARecipient).to.equal('LA OFERTA NO FUE ENVIADA A ESTA CENTRAL');
    });

    it('a failure inside answers 500 {status:false, data:"Error al aceptar la oferta"}, never a bare 500', async () => {
      const r = await responder();
      const broken = { ...app.rt, orm: { em: { fork: () => { throw new Error('database unavailable'); } } } as unknown as MikroORM } as Runtime;
      const res = await invoke(broken, 'acceptOffer', { apiUser: r.user }, acceptanceBody(randomUUID(), r));
      expect(res).to.deep.equal({ status: 500, body: { status: false, data: 'Error al aceptar la oferta' } });
    });
  });

  describe('(a) ABIERTA, another central', () => {
    it('records the response with its figures and answers 200 RESPUESTA ACEPTADA...', async () => {
      const r = await responder();
      const uuid = await newOffer(gen, r);
      const res = await put(acceptanceBody(uuid, r, { tiempoLlegadaSitio: 14, latitudTecnico: '4.70', longitudTecnico: '-74.08' }), r.key);
      expect(res).to.deep.equal({
        code: 200,
        body: { status: true, data: 'RESPUESTA ACEPTADA, ESPERA POR FAVOR A QUE SE CONFIRME LA ASIGNACIÓN DEL SERVICIO' },
      });
      const [resp] = await fork().find(OfferResponse, { offer: uuid });
      expect(resp).to.include({ timeMin: 14, timeGiven: true, rate: 4.5, techLat: 4.7, techLng: -74.08, distanceKm: 5.18 });
      expect((await load(uuid))!.state).to.equal('ABIERTA');
    });

    it('without time or coordinates: the last known position and an estimate at the average speed (30 km/h)', async () => {
      const r = await responder();
      const uuid = await newOffer(gen, r);
      expect((await put(acceptanceBody(uuid, r), r.key)).code).to.equal(200);
      const [resp] = await fork().find(OfferResponse, { offer: uuid });
      expect(resp).to.include({ distanceKm: 1.106, timeMin: 2, timeGiven: false, techLat: BOGOTA.lat + 0.01, techLng: BOGOTA.lng });
    });

    it('a central answering twice replaces its own response', async () => {
      const r = await responder();
      const other = await makeTechnician(fork(), r.central, { names: 'Otro Técnico', position: BOGOTA });
      const uuid = await newOffer(gen, r);
      expect((await put(acceptanceBody(uuid, r, { tiempoLlegadaSitio: 30 }), r.key)).code).to.equal(200);
      expect((await put({ ...acceptanceBody(uuid, r, { tiempoLlegadaSitio: 9 }), dniTecnico: other.dni }, r.key)).code).to.equal(200);
      const rows = await fork().find(OfferResponse, { offer: uuid });
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({ timeMin: 9 });
      expect(rows[0].technician.id).to.equal(other.id);
    });
  });

  describe("(b) ABIERTA, the generator's own central", () => {
    it('wins at once: ASIGNADA with its technician, the acceptance notification planned and enqueued; the evaluation then does nothing', async () => {
      const owner = await makeApiUser(fork(), { apiKey: `own-${randomUUID()}`, nit: gen.user.nit });
      const own = await makeResponder(fork(), { nit: gen.user.nit!, owner: owner.user, name: 'Central Propia' });
      const uuid = await newOffer();
      const res = await put(acceptanceBody(uuid, own, { tiempoLlegadaSitio: 7 }), own.key);
      expect(res).to.deep.equal({
        code: 200,
        body: { status: true, data: 'RESPUESTA ACEPTADA, ESPERA POR FAVOR A QUE SE CONFIRME LA ASIGNACIÓN DEL SERVICIO' },
      });
      const offer = await load(uuid);
      expect(offer!.state).to.equal('ASIGNADA');
      expect(offer!.assignedCentral!.id).to.equal(own.central.id);
      expect(offer!.assignedTechnician!.id).to.equal(own.technician.id);
      const [delivery] = await fork().find(WebhookDelivery, { offer: uuid });
      expect(delivery).to.include({ kind: 'acceptance', state: 'pending', url: `${GENERATOR_URL}${RESPUESTA_PATH}` });
      expect(delivery.requestBody).to.include({ id: uuid, dniPrestador: own.central.nit, dniTecnico: own.technician.dni, tiempoLlegadaSitio: 7 });
      // D16: assigned at once, so the notification carries the service's code
      expect(delivery.requestBody.codigoServicio).to.be.a('string').and.equal(offer!.codigoServicio);
      const job = await app.rt.queues.get('webhook-dispatch').getJob(jobId('deliver', delivery.id));
      expect(job?.data).to.deep.equal({ deliveryId: delivery.id });
      expect(job?.opts.attempts).to.equal(1);
      expect(await evaluateOffer(app.rt, uuid)).to.equal('nothing');
      expect((await load(uuid))!.state).to.equal('ASIGNADA');
      const moves = await fork().find(OfferTransition, { offer: uuid }, { orderBy: { id: 'asc' } });
      expect(moves.map((m) => [m.fromState, m.toState, m.actor])).to.deep.equal([
        [null, 'ABIERTA', `api-user:${gen.user.username}`],
        ['ABIERTA', 'ASIGNADA', `central:${own.central.nit}`],
      ]);
    });
  });

  describe('(c) SIN_RESPUESTA: late acceptance, forwarded to the generator at once', () => {
    const lateOffer = async (g: Generator = gen, ...to: Responder[]) => {
      const uuid = await newOffer(g, ...to);
      expect(await evaluateOffer(app.rt, uuid)).to.equal('no-response');
      return uuid;
    };

    it('generator answers 200: ACEPTADA, 200 Oferta aceptada, the delivery recorded ok', async () => {
      const r = await responder();
      const uuid = await lateOffer(gen, r);
      const scope = nock(GENERATOR_URL).put(RESPUESTA_PATH, (b: { id: string }) => b.id === uuid).reply(200, { ok: true });
      expect(await put(acceptanceBody(uuid, r, { tiempoLlegadaSitio: 20 }), r.key)).to.deep.equal({ code: 200, body: { status: true, data: 'Oferta aceptada' } });
      expect(scope.isDone()).to.equal(true);
      const offer = await load(uuid);
      expect(offer!.state).to.equal('ACEPTADA');
      expect(offer!.assignedCentral!.id).to.equal(r.central.id);
      const [delivery] = await fork().find(WebhookDelivery, { offer: uuid });
      expect(delivery).to.include({ state: 'ok', statusCode: 200, attempts: 1 });
    });

    it('generator answers 200 but requires payment confirmation: the payment-pending message', async () => {
      const g = await makeGenerator(fork(), { requiresPaymentConfirmation: true });
      const r = await responder();
      const uuid = await lateOffer(g, r);
      nock(GENERATOR_URL).put(RESPUESTA_PATH).reply(200);
      expect(await put(acceptanceBody(uuid, r), r.key)).to.deep.equal({
        code: 200,
        body: { status: true, data: 'Oferta aceptada, pero el cliente aún no ha confirmado el método de pago' },
      });
      expect((await load(uuid))!.state).to.equal('ACEPTADA');
    });

    it('generator rejects with JSON: INACTIVA and 400 with its body as it is', async () => {
      const r = await responder();
      const uuid = await lateOffer(gen, r);
      nock(GENERATOR_URL).put(RESPUESTA_PATH).reply(409, { status: false, msg: 'SERVICIO YA ASIGNADO', codigo: 7 });
      expect(await put(acceptanceBody(uuid, r), r.key)).to.deep.equal({ code: 400, body: { status: false, msg: 'SERVICIO YA ASIGNADO', codigo: 7 } });
      expect((await load(uuid))!.state).to.equal('INACTIVA');
      const [delivery] = await fork().find(WebhookDelivery, { offer: uuid });
      expect(delivery).to.include({ state: 'failed', statusCode: 409 });
    });

    it('generator rejects with text: INACTIVA and 400 {status:false, data:text}', async () => {
      const r = await responder();
      const uuid = await lateOffer(gen, r);
      nock(GENERATOR_URL).put(RESPUESTA_PATH).reply(500, 'Internal Server Error');
      expect(await put(acceptanceBody(uuid, r), r.key)).to.deep.equal({ code: 400, body: { status: false, data: 'Internal Server Error' } });
      expect((await load(uuid))!.state).to.equal('INACTIVA');
    });

    it('first come: simultaneous late acceptances forward once; the others get Oferta ya aceptada', async () => {
      const centrals: Responder[] = [];
      for (let i = 0; i < 6; i++) centrals.push(await responder());
      const uuid = await lateOffer(gen, ...centrals);
      let calls = 0;
      nock(GENERATOR_URL)
        .put(RESPUESTA_PATH)
        .times(6)
        .reply(() => {
          calls++;
          return [200, 'OK'];
        });
      const all = await Promise.all(centrals.map((c) => put(acceptanceBody(uuid, c), c.key)));
      expect(calls).to.equal(1);
      expect(all.filter((r) => r.code === 200).map((r) => r.body.data)).to.deep.equal(['Oferta aceptada']);
      expect(all.filter((r) => r.code === 400).map((r) => r.body.data)).to.deep.equal(Array(5).fill('Oferta ya aceptada'));
      expect(await fork().count(OfferResponse, { offer: uuid })).to.equal(1);
      expect(await fork().count(WebhookDelivery, { offer: uuid })).to.equal(1);
    });
  });

  /** 10 acceptances from different centrals (one of them the generator's own) racing the evaluation. */
  async function race(evaluateWhen: 'at-once' | 'after-first-response') {
    const centrals: Responder[] = [];
    for (let i = 0; i < 9; i++) centrals.push(await responder());
    const owner = await makeApiUser(fork(), { apiKey: `own-${randomUUID()}` });
    const g = await makeGenerator(fork(), { nit: `7${Math.floor(Math.random() * 1e8).toString().padStart(8, '0')}` });
    centrals.push(await makeResponder(fork(), { nit: g.user.nit!, owner: owner.user }));
    // distributed to the nine others; the generator's own central answers as its own (spec 3)
    const uuid = await newOffer(g, ...centrals.slice(0, 9));
    // when the evaluation comes first (no response yet), the first late acceptance is forwarded
    let forwards = 0;
    nock(GENERATOR_URL)
      .put(RESPUESTA_PATH)
      .times(10)
      .reply(() => {
        forwards++;
        return [200, 'OK'];
      });
    const puts = Promise.all(centrals.map((c, i) => put(acceptanceBody(uuid, c, { tiempoLlegadaSitio: 10 + i }), c.key)));
    if (evaluateWhen === 'after-first-response') await waitFor(() => fork().count(OfferResponse, { offer: uuid }), 5000, 'a response');
    const [replies, evaluation] = await Promise.all([puts, evaluateOffer(app.rt, uuid)]);

    const texts = replies.map((r) => `${r.code} ${String(r.body.data)}`);
    for (const t of texts) expect(['200 ' + ACCEPTANCE_MESSAGES.recorded, '200 Oferta aceptada', '400 Oferta ya aceptada'], t).to.include(t);
    expect(texts.filter((t) => t === '200 Oferta aceptada').length).to.be.at.most(1);
    expect(forwards).to.be.at.most(1);

    const offer = await load(uuid);
    expect(['ACEPTADA', 'ASIGNADA']).to.include(offer!.state);
    const selections = await fork().find(OfferTransition, { offer: uuid, toState: { $in: ['ACEPTADA', 'ASIGNADA'] } });
    expect(selections, 'one selection').to.have.length(1);
    expect(await fork().count(WebhookDelivery, { offer: uuid }), 'one notification').to.equal(1);
    const responses = await fork().find(OfferResponse, { offer: uuid });
    expect(responses.map((x) => x.id)).to.include(offer!.acceptedResponse);
    if (evaluation === 'selected') {
      // the best of the responses recorded before the evaluation took the lock
      expect(offer!.acceptedResponse).to.equal([...responses].sort((a, b) => a.timeMin - b.timeMin)[0].id);
    } else if (offer!.state === 'ASIGNADA') {
      expect(offer!.assignedCentral!.nit).to.equal(g.user.nit);
    } else {
      expect(evaluation).to.equal('no-response');
      expect(responses).to.have.length(1);
    }
    // nothing was recorded after the selection
    for (const r of responses) expect(r.createdAt.getTime()).to.be.at.most(selections[0].at.getTime());
  }

  it('10 simultaneous acceptances and the evaluation at once: exactly one winner, notified once', async () => {
    await race('at-once');
  });

  it('10 simultaneous acceptances, the evaluation once the first is recorded: exactly one winner, notified once', async () => {
    await race('after-first-response');
  });
});
