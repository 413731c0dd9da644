import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Offer } from '../../src/db/entities/index.js';
import { evaluateOffer } from '../../src/domain/offers/selection/evaluation.js';
import { resetDb } from '../helpers/db.js';
import { BOGOTA, makeServiceType } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { acceptanceBody, distributeTo, makeGenerator, makeResponder, offerBody, type Generator } from '../helpers/offers.js';

describe('GET /offer-responses', () => {
  let app: TestApp;
  let gen: Generator;

  const get = (o: { json?: unknown; uuid?: string; auth?: string }) =>
    app.client.get('api/v3/offer-responses', {
      headers: { authorization: o.auth ?? gen.auth },
      ...(o.json !== undefined ? { json: o.json } : {}),
      ...(o.uuid !== undefined ? { searchParams: { uuid: o.uuid } } : {}),
    });
  const newOffer = async () => {
    const body = offerBody();
    const res = await app.client.post('api/v3/oferta', { json: body, headers: { authorization: gen.auth } });
    expect(res.statusCode).to.equal(200);
    return body.uuid as string;
  };
  const accept = async (uuid: string, o: { minutes: number; rate?: number; lat?: number }) => {
    const r = await makeResponder(app.rt.orm.em.fork(), { rate: o.rate, position: { lat: o.lat ?? BOGOTA.lat + 0.02, lng: BOGOTA.lng } });
    await distributeTo(app.rt.orm.em.fork(), uuid, r); // D20: only a recipient answers
    const res = await app.client.put('api/v3/aceptacion', {
      json: acceptanceBody(uuid, r, { tiempoLlegadaSitio: o.minutes }),
      headers: { 'x-apikey': r.key },
    });
    expect(res.statusCode, JSON.stringify(res.body)).to.equal(200);
    return r;
  };

  before(async () => {
    app = await startApp();
    await resetDb(app.rt.orm);
    await makeServiceType(app.rt.orm.em.fork(), { id: 1 });
    gen = await makeGenerator(app.rt.orm.em.fork());
  });
  after(async () => app.close());

  it('400 with data [] when no uuid is given (neither body nor query), or an empty one', async () => {
    for (const res of [await get({}), await get({ json: {} }), await get({ json: { uuid: '' } }), await get({ uuid: '' })]) {
      expect(res.statusCode).to.equal(400);
      expect(res.body).to.deep.equal({ status: false, msg: 'NO SE HA PROPORCIONADO EL UUID DE LA OFERTA', data: [] });
    }
  });

  it("403 with data [] for an unknown uuid, a malformed one, and another generator's offer", async () => {
    const uuid = await newOffer();
    const other = await makeGenerator(app.rt.orm.em.fork());
    for (const res of [await get({ json: { uuid: randomUUID() } }), await get({ uuid: 'abc' }), await get({ json: { uuid }, auth: other.auth })]) {
      expect(res.statusCode).to.equal(403);
      expect(res.body).to.deep.equal({ status: false, msg: 'NO SE HA ENCONTRADO LA OFERTA', data: [] });
    }
  });

  it('200 while open: no responses yet, accepted null; the uuid may come in the GET body or the query', async () => {
    const uuid = await newOffer();
    const expected = { status: true, msg: 'RESPUESTAS DE LA OFERTA', data: { responses: [], accepted: null } };
    expect((await get({ json: { uuid } })).body).to.deep.equal(expected);
    expect((await get({ uuid })).body).to.deep.equal(expected);
  });

  it('200 while open: every response in shape 2.3, best first (D2)', async () => {
    const uuid = await newOffer();
    const slow = await accept(uuid, { minutes: 25, rate: 5 });
    const fast = await accept(uuid, { minutes: 8, rate: 3, lat: BOGOTA.lat + 0.05 });
    const res = await get({ json: { uuid } });
    expect(res.statusCode).to.equal(200);
    const data = (res.body as unknown as { data: { responses: unknown[]; accepted: null } }).data;
    expect(data.accepted).to.equal(null);
    expect(data.responses).to.deep.equal([
      { distance: 5.529, techCoords: { latitud: String(BOGOTA.lat + 0.05), longitud: String(BOGOTA.lng) }, tech_names: fast.technician.names, time: 8, rate: 3 },
      { distance: 2.212, techCoords: { latitud: String(BOGOTA.lat + 0.02), longitud: String(BOGOTA.lng) }, tech_names: slow.technician.names, time: 25, rate: 5 },
    ]);
  });

  it('200 once a response is selected: responses [] and accepted filled with the selected one', async () => {
    const uuid = await newOffer();
    await accept(uuid, { minutes: 25 });
    const winner = await accept(uuid, { minutes: 6, rate: 4 });
    expect(await evaluateOffer(app.rt, uuid)).to.equal('selected');
    const res = await get({ uuid });
    expect(res.body).to.deep.equal({
      status: true,
      msg: 'RESPUESTAS DE LA OFERTA',
      data: {
        responses: [],
        accepted: { distance: 2.212, techCoords: { latitud: String(BOGOTA.lat + 0.02), longitud: String(BOGOTA.lng) }, tech_names: winner.technician.names, time: 6, rate: 4 },
      },
    });
  });

  it('an offer closed without a selection (SIN_RESPUESTA) answers no responses and accepted null', async () => {
    const uuid = await newOffer();
    expect(await evaluateOffer(app.rt, uuid)).to.equal('no-response');
    expect((await app.rt.orm.em.fork().findOne(Offer, { uuid }))!.state).to.equal('SIN_RESPUESTA');
    expect((await get({ uuid })).body).to.deep.equal({ status: true, msg: 'RESPUESTAS DE LA OFERTA', data: { responses: [], accepted: null } });
  });
});
