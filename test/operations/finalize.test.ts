import { expect } from 'chai';
import { Offer, OfferTransition } from '../../src/db/entities/index.js';
import { signOperatorToken } from '../../src/auth/jwt.js';
import { makeOperator } from '../helpers/factories.js';
import { basic, type TestApp } from '../helpers/harness.js';
import { bodyOf, deliveriesOf, offerIn, startOps, type Generator, type Provider } from '../helpers/ops.js';

describe('POST /finalize', () => {
  let app: TestApp;
  let gen: Generator;
  let other: Generator;
  let prov: Provider;
  let operatorToken: string;

  before(async () => {
    const suite = await startOps();
    ({ app, gen, other, prov } = suite);
    const { operator } = await makeOperator(suite.em, { username: 'ops-finalize' });
    operatorToken = await signOperatorToken(operator, app.rt.config.jwtSecret, '1h');
  });
  after(async () => app.close());

  const finalize = (authorization: string | undefined, json: unknown) =>
    app.client.post('api/v3/finalize', { headers: authorization ? { authorization } : {}, json });
  const stateOf = async (uuid: string) => (await app.rt.orm.em.fork().findOneOrFail(Offer, uuid)).state;

  for (const state of ['ASIGNADA', 'EN_CAMINO', 'EN_SITIO'] as const) {
    it(`finalizes an active service in ${state} and notifies the generator`, async () => {
      const offer = await offerIn(app.rt.orm.em.fork(), gen, state, prov);
      const res = await finalize(gen.auth, { uuid: offer.uuid });
      expect(res.statusCode).to.equal(200);
      expect(res.body).to.deep.equal({ status: true, msg: 'Servicio finalizado exitosamente' });
      expect(await stateOf(offer.uuid)).to.equal('FINALIZADA');
      const [d] = await deliveriesOf(app.rt.orm.em, offer.uuid);
      expect(d.requestBody).to.include({ id: offer.uuid, estado: 'FINALIZADA' });
    });
  }

  it('lets an operator (JWT) finalize any generator’s service, recorded as the operator', async () => {
    const offer = await offerIn(app.rt.orm.em.fork(), other, 'EN_SITIO', prov);
    const res = await finalize(`Bearer ${operatorToken}`, { uuid: offer.uuid });
    expect(res.statusCode).to.equal(200);
    expect(await stateOf(offer.uuid)).to.equal('FINALIZADA');
    const audit = await app.rt.orm.em.fork().find(OfferTransition, { offer: offer.uuid });
    expect(audit.map((t) => t.actor)).to.deep.equal(['operator:ops-finalize']);
  });

  for (const state of ['ABIERTA', 'SIN_RESPUESTA', 'ACEPTADA', 'FINALIZADA', 'CANCELADA', 'NO_ASIGNADA', 'INACTIVA', 'EXPIRADA'] as const) {
    it(`refuses a service that is not active (${state}) with 403 naming the state`, async () => {
      const offer = await offerIn(app.rt.orm.em.fork(), gen, state, prov);
      const res = await finalize(gen.auth, { uuid: offer.uuid });
      expect(res.statusCode).to.equal(403);
      expect(res.body).to.deep.equal({
        status: false,
        msg: `El servicio no está activo (estado ${state}), no es posible finalizarlo`,
        data: { estado: state },
      });
      expect(await stateOf(offer.uuid)).to.equal(state);
    });
  }

  it('finalizes once: a second call is refused naming FINALIZADA', async () => {
    const offer = await offerIn(app.rt.orm.em.fork(), gen, 'ASIGNADA', prov);
    const [a, b] = await Promise.all([finalize(gen.auth, { uuid: offer.uuid }), finalize(gen.auth, { uuid: offer.uuid })]);
    expect([a.statusCode, b.statusCode].sort()).to.deep.equal([200, 403]);
    const audit = await app.rt.orm.em.fork().find(OfferTransition, { offer: offer.uuid, toState: 'FINALIZADA' });
    expect(audit).to.have.length(1);
  });

  it("answers 404 Servicio no encontrado for an unknown uuid and another generator's", async () => {
    const theirs = await offerIn(app.rt.orm.em.fork(), other, 'ASIGNADA', prov);
    for (const uuid of ['0b7e6f4a-3c1d-4e5f-8a9b-0c1d2e3f4a5b', theirs.uuid, 'abc']) {
      const res = await finalize(gen.auth, { uuid });
      expect(res.statusCode).to.equal(404);
      expect(res.body).to.deep.equal({ status: false, msg: 'Servicio no encontrado' });
    }
    expect(await stateOf(theirs.uuid)).to.equal('ASIGNADA');
  });

  it('answers 400 UUID es requerido without uuid', async () => {
    for (const json of [{}, { uuid: '' }, { uuid: 42 }]) {
      const res = await finalize(gen.auth, json);
      expect(res.statusCode).to.equal(400);
      expect(res.body).to.deep.equal({ status: false, msg: 'UUID es requerido' });
    }
  });

  it('answers 401 in the controller envelope for bad credentials (Basic or JWT)', async () => {
    for (const auth of [basic(gen.user.username, 'wrong-password'), 'Bearer not.a.jwt']) {
      const res = await finalize(auth, { uuid: '0b7e6f4a-3c1d-4e5f-8a9b-0c1d2e3f4a5b' });
      expect(res.statusCode).to.equal(401);
      expect(res.body).to.deep.equal({ status: false, msg: 'Las credenciales de acceso no son correctas.' });
    }
    const none = await finalize(undefined, { uuid: 'x' });
    expect(none.statusCode).to.equal(401);
    expect(bodyOf(none)).to.deep.equal({ status: false, msg: 'No se han brindado las credenciales de acceso.' });
  });

  it('answers 500 with the spec message when the database fails, and changes nothing', async () => {
    const offer = await offerIn(app.rt.orm.em.fork(), gen, 'EN_CAMINO', prov);
    const conn = app.rt.orm.em.fork().getConnection();
    await conn.execute(`create or replace function test_fail_finalize() returns trigger language plpgsql as $$
      begin if new.offer_uuid = '${offer.uuid}' then raise exception 'simulated failure'; end if; return new; end $$`);
    await conn.execute(`create trigger test_fail_finalize before insert on offer_transition for each row execute function test_fail_finalize()`);
    try {
      const res = await finalize(gen.auth, { uuid: offer.uuid });
      expect(res.statusCode).to.equal(500);
      expect(res.body).to.deep.equal({ status: false, msg: 'Ha ocurrido un error interno del servidor, por favor intenta más tarde' });
      expect(await stateOf(offer.uuid)).to.equal('EN_CAMINO');
    } finally {
      await conn.execute(`drop trigger test_fail_finalize on offer_transition`);
      await conn.execute(`drop function test_fail_finalize()`);
    }
  });
});
