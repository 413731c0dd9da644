/**
 * Issue 8 item 2 (D19): every string a client sends is bounded, so a field of
 * 20,000 spaces (or of a megabyte, within the body limit) is refused with the
 * route's 400 before any pattern reads it.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { ACCEPTANCE_MESSAGES } from '../../src/api/offers/acceptOffer.js';
import { OFFER_MESSAGES } from '../../src/api/offers/createOffer.js';
import { resetDb } from '../helpers/db.js';
import { makeServiceType } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { makeGenerator, makeResponder, offerBody, type Generator, type Responder } from '../helpers/offers.js';

const SPACES = ' '.repeat(20_000);
const MEGABYTE = ' '.repeat(1_000_000);

describe('Bounded strings (issue 8, D19)', () => {
  let app: TestApp;
  let gen: Generator;
  let responder: Responder;

  before(async () => {
    app = await startApp();
    await resetDb(app.rt.orm);
    const em = app.rt.orm.em.fork();
    await makeServiceType(em, { id: 1, type: 'GRUA' });
    gen = await makeGenerator(em);
    responder = await makeResponder(em);
  });
  after(async () => app.close());

  const postOffer = (body: unknown) =>
    app.client.post('api/v3/oferta', { json: body, headers: { authorization: gen.auth } }).then((r) => ({ code: r.statusCode, body: r.body }));

  const cases: Array<[string, number]> = [
    ['latitudOrigen', 32],
    ['longitudDestino', 32],
    ['fechaCita', 32],
    ['horaCita', 32],
    ['internal', 32],
    ['global', 32],
  ];
  for (const [field, max] of cases) {
    it(`POST /oferta with 20,000 spaces around a digit in ${field} answers 400 naming the limit`, async () => {
      const res = await postOffer(offerBody({ [field]: `${SPACES}1${SPACES}` }));
      expect(res.code).to.equal(400);
      expect(res.body).to.deep.equal({ status: false, msg: OFFER_MESSAGES.tooLong(field, max) });
    });
  }

  it('POST /oferta with a field of a megabyte of spaces (within the body limit) answers 400', async () => {
    const res = await postOffer(offerBody({ latitudOrigen: MEGABYTE }));
    expect(res.code).to.equal(400);
    expect(res.body).to.deep.equal({ status: false, msg: OFFER_MESSAGES.tooLong('latitudOrigen', 32) });
  });

  it('POST /oferta with a 20,000-space uuid or tipoServicio answers their own 400s', async () => {
    expect((await postOffer(offerBody({ uuid: SPACES }))).body).to.deep.equal({ status: false, msg: OFFER_MESSAGES.uuidInvalid });
    expect((await postOffer(offerBody({ tipoServicio: `${SPACES}1` }))).body).to.deep.equal({ status: false, msg: OFFER_MESSAGES.typeInvalid });
  });

  it('PUT /aceptacion with 20,000 spaces in latitudTecnico answers 400 in its envelope', async () => {
    const res = await app.client.put('api/v3/aceptacion', {
      json: { id: randomUUID(), dniPrestador: responder.central.nit, dniTecnico: responder.technician.dni, latitudTecnico: `${SPACES}4${SPACES}` },
      headers: { 'x-apikey': responder.key },
    });
    expect(res.statusCode).to.equal(400);
    expect(res.body).to.deep.equal({ status: false, data: ACCEPTANCE_MESSAGES.badCoordinate('latitudTecnico') });
  });

  it('PUT /aceptacion with a megabyte of spaces as the offer id answers 400 in its envelope', async () => {
    const res = await app.client.put('api/v3/aceptacion', {
      json: { id: MEGABYTE, dniPrestador: responder.central.nit, dniTecnico: responder.technician.dni },
      headers: { 'x-apikey': responder.key },
    });
    expect(res.statusCode).to.equal(400);
    expect(res.body).to.deep.equal({ status: false, data: ACCEPTANCE_MESSAGES.badId });
  });
});
