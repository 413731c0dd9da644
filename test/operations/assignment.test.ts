import { expect } from 'chai';
import { Offer, OfferTransition, WebhookDelivery } from '../../src/db/entities/index.js';
import { dispatchAcceptance, planAcceptanceNotification } from '../../src/domain/offers/selection/acceptanceNotification.js';
import { WITHDRAWN_BEFORE_SENDING } from '../../src/domain/offers/operations/withdrawal.js';
import { CODE_PATTERN } from '../../src/domain/offers/lifecycle/codes.js';
import { jobId } from '../../src/queues/registry.js';
import type { TestApp } from '../helpers/harness.js';
import {
  CENTRAL_URL,
  GENERATOR_URL,
  bodyOf,
  deliveriesOf,
  listenBus,
  makeProvider,
  offerIn,
  respond,
  startOps,
  type Generator,
  type Provider,
} from '../helpers/ops.js';
import { waitFor } from '../helpers/wait.js';


describe('POST /asignacion, /no-asignacion, /cancelacion', () => {
  let app: TestApp;
  let gen: Generator;
  let other: Generator;
  let prov: Provider;
  let loser: Provider;

  before(async () => {
    const suite = await startOps({ provider: { name: 'Grúas Norte' } });
    ({ app, gen, other, prov } = suite);
    loser = await makeProvider(suite.em, { name: 'Grúas Sur', novedad: '/sur/novedad' });
  });
  after(async () => app.close());

  const post = (path: string, auth: string, json: unknown) =>
    app.client.post(`api/v3/${path}`, { headers: { authorization: auth }, json });
  const reload = (uuid: string) => app.rt.orm.em.fork().findOneOrFail(Offer, uuid);

  describe('POST /asignacion', () => {
    it('moves ACEPTADA → ASIGNADA, names the central, records plate and remarks, gives the service codes', async () => {
      const em = app.rt.orm.em.fork();
      const offer = await offerIn(em, gen, 'ACEPTADA', prov);
      const res = await post('asignacion', gen.auth, { uuid: offer.uuid, placa: 'ABC123', observaciones: 'Llamar al llegar' });
      expect(res.statusCode).to.equal(200);
      const body = bodyOf(res);
      expect(body).to.include({ status: true, msg: 'SE HA CONFIRMADO LA ASIGNACIÓN DEL SERVICIO A LA CENTRAL Grúas Norte' });
      expect(body.codigoServicio).to.match(CODE_PATTERN).and.match(/^SV-/);
      const after = await reload(offer.uuid);
      expect(after.state).to.equal('ASIGNADA');
      expect(after).to.include({ placa: 'ABC123', observacionesAsignacion: 'Llamar al llegar', codigoServicio: body.codigoServicio });
      expect(after.codigoSolicitud).to.match(/^SL-/);
      const audit = await app.rt.orm.em.fork().find(OfferTransition, { offer: offer.uuid });
      expect(audit.map((t) => [t.fromState, t.toState, t.actor])).to.deep.equal([['ACEPTADA', 'ASIGNADA', `api-user:${gen.user.username}`]]);
      const [d] = await deliveriesOf(app.rt.orm.em, offer.uuid);
      expect(d).to.include({ kind: 'state', url: `${GENERATOR_URL}/estado`, state: 'pending' });
      expect(d.requestBody).to.include({ id: offer.uuid, estado: 'ASIGNADA' });
    });

    it('takes the central and technician of the accepted response when the offer names none', async () => {
      const em = app.rt.orm.em.fork();
      const offer = await offerIn(em, gen, 'ABIERTA');
      const r = await respond(em, offer, loser);
      offer.state = 'ACEPTADA';
      offer.acceptedResponse = r.id;
      await em.flush();
      const res = await post('asignacion', gen.auth, { uuid: offer.uuid });
      expect(res.statusCode).to.equal(200);
      expect(bodyOf(res).msg).to.equal('SE HA CONFIRMADO LA ASIGNACIÓN DEL SERVICIO A LA CENTRAL Grúas Sur');
      const after = await reload(offer.uuid);
      expect(after.assignedCentral?.id).to.equal(loser.central.id);
      expect(after.assignedTechnician?.id).to.equal(loser.technician.id);
    });

    for (const state of ['ABIERTA', 'SIN_RESPUESTA', 'ASIGNADA', 'EN_CAMINO', 'FINALIZADA', 'CANCELADA', 'NO_ASIGNADA', 'INACTIVA', 'EXPIRADA'] as const) {
      it(`refuses an offer in ${state} with 403 naming the state`, async () => {
        const offer = await offerIn(app.rt.orm.em.fork(), gen, state, prov);
        const res = await post('asignacion', gen.auth, { uuid: offer.uuid });
        expect(res.statusCode).to.equal(403);
        const body = bodyOf(res);
        expect(body.status).to.equal(false);
        expect(body.msg).to.be.a('string').and.contain(state);
        expect(body.data).to.deep.equal({ estado: state });
        expect((await reload(offer.uuid)).state).to.equal(state);
      });
    }

    it("answers 404 OFERTA NO ENCONTRADA for an unknown uuid, another generator's and a non-UUID, alike", async () => {
      const theirs = await offerIn(app.rt.orm.em.fork(), other, 'ACEPTADA', prov);
      for (const uuid of ['6f1c1d5e-8a43-4b7e-9a57-1d2f3e4a5b6c', theirs.uuid, 'not-a-uuid']) {
        const res = await post('asignacion', gen.auth, { uuid });
        expect(res.statusCode).to.equal(404);
        expect(res.body).to.deep.equal({ status: false, msg: 'OFERTA NO ENCONTRADA' });
      }
      expect((await reload(theirs.uuid)).state).to.equal('ACEPTADA');
    });

    it('answers 400 when uuid is missing, and 401 (system envelope) without credentials', async () => {
      const res = await post('asignacion', gen.auth, {});
      expect(res.statusCode).to.equal(400);
      expect(res.body).to.deep.equal({ status: false, msg: "NO SE RECIBIÓ EL CAMPO 'uuid', REQUERIDO PARA CONFIRMAR LA ASIGNACIÓN DEL SERVICIO" });
      const anon = await app.client.post('api/v3/asignacion', { json: { uuid: 'x' } });
      expect(anon.statusCode).to.equal(401);
      expect(anon.body).to.include({ error: true, message: 'No se han brindado las credenciales de acceso.' });
    });
  });

  describe('POST /no-asignacion', () => {
    it('withdraws an ABIERTA offer: NO_ASIGNADA, evaluation job removed, responders told, offer.closed published', async () => {
      const em = app.rt.orm.em.fork();
      const offer = await offerIn(em, gen, 'ABIERTA');
      await respond(em, offer, prov);
      await respond(em, offer, loser);
      await app.rt.queues.add('offer-evaluation', 'evaluate', { offerUuid: offer.uuid }, { jobId: jobId('evaluate', offer.uuid), delay: 60_000 });
      const bus = await listenBus(app.rt.config.redisUrl, app.rt.config.queuePrefix);
      try {
        const res = await post('no-asignacion', gen.auth, { uuid: offer.uuid, motivo: 'El cliente desistió' });
        expect(res.statusCode).to.equal(200);
        expect(res.body).to.deep.equal({ status: true, msg: 'SE HA RECIBIDO EXITOSAMENTE LA NO ASIGNACIÓN DEL SERVICIO' });
        const after = await reload(offer.uuid);
        expect(after).to.include({ state: 'NO_ASIGNADA', motivo: 'El cliente desistió' });
        expect(await app.rt.queues.get('offer-evaluation').getJob(jobId('evaluate', offer.uuid))).to.equal(undefined);
        const ds = await deliveriesOf(app.rt.orm.em, offer.uuid);
        // D12: the generator hears its own withdrawal too; the responders are told
        expect(ds.map((d) => [d.kind, d.url, d.requestBody.estado])).to.have.deep.members([
          ['state', `${GENERATOR_URL}/estado`, 'NO_ASIGNADA'],
          ['novedad', `${CENTRAL_URL}/novedad`, 'NO_ASIGNADA'],
          ['novedad', `${CENTRAL_URL}/sur/novedad`, 'NO_ASIGNADA'],
        ]);
        for (const d of ds) expect(String(d.requestBody.detalle)).to.contain('El cliente desistió');
        await waitFor(() => bus.messages.some((m) => m.event === 'offer.closed'), 8000, 'offer.closed');
        const closed = bus.messages.find((m) => m.event === 'offer.closed');
        expect(closed?.data).to.deep.equal({ uuid: offer.uuid, result: 'withdrawn' });
        expect(closed?.audience).to.deep.equal({ kind: 'offer', offerUuid: offer.uuid, apiUserId: gen.user.id });
        await waitFor(() => bus.messages.some((m) => m.event === 'offer.state'), 8000, 'offer.state');
        expect(bus.messages.find((m) => m.event === 'offer.state')?.data).to.include({ estado: 'NO_ASIGNADA', anterior: 'ABIERTA' });
      } finally {
        bus.close();
      }
    });

    for (const state of ['SIN_RESPUESTA', 'ACEPTADA'] as const) {
      it(`withdraws an offer in ${state}`, async () => {
        const offer = await offerIn(app.rt.orm.em.fork(), gen, state, state === 'ACEPTADA' ? prov : undefined);
        const res = await post('no-asignacion', gen.auth, { uuid: offer.uuid });
        expect(res.statusCode).to.equal(200);
        expect((await reload(offer.uuid)).state).to.equal('NO_ASIGNADA');
      });
    }

    it('an acceptance notification not sent yet is never sent for a withdrawn offer', async () => {
      const em = app.rt.orm.em.fork();
      const offer = await offerIn(em, gen, 'ACEPTADA', prov);
      const response = await respond(em, offer, prov);
      await em.populate(response, ['central', 'technician']);
      const deliveryId = planAcceptanceNotification(em, app.rt.config, offer, gen.user, response);
      await em.flush();
      expect(deliveryId).to.be.a('string');
      expect((await post('no-asignacion', gen.auth, { uuid: offer.uuid })).statusCode).to.equal(200);
      // nock has no interceptor for the generator: a send would be recorded as an error, not skipped
      expect(await dispatchAcceptance(app.rt, deliveryId!)).to.equal(null);
      const d = await app.rt.orm.em.fork().findOneOrFail(WebhookDelivery, deliveryId!);
      expect(d).to.include({ state: 'failed', attempts: 0, error: WITHDRAWN_BEFORE_SENDING, statusCode: null });
    });

    it('tells the generator when an accepted offer is withdrawn, and the selected central', async () => {
      const offer = await offerIn(app.rt.orm.em.fork(), gen, 'ACEPTADA', prov);
      await post('no-asignacion', gen.auth, { uuid: offer.uuid });
      const ds = await deliveriesOf(app.rt.orm.em, offer.uuid);
      expect(ds.map((d) => [d.kind, d.requestBody.estado])).to.deep.equal([
        ['state', 'NO_ASIGNADA'],
        ['novedad', 'NO_ASIGNADA'],
      ]);
    });

    for (const state of ['ASIGNADA', 'EN_CAMINO', 'EN_SITIO', 'FINALIZADA', 'CANCELADA', 'NO_ASIGNADA', 'INACTIVA', 'EXPIRADA'] as const) {
      it(`refuses an offer in ${state} with 403 naming the state`, async () => {
        const offer = await offerIn(app.rt.orm.em.fork(), gen, state, prov);
        const res = await post('no-asignacion', gen.auth, { uuid: offer.uuid });
        expect(res.statusCode).to.equal(403);
        expect(bodyOf(res).msg).to.contain(state);
        if (['ASIGNADA', 'EN_CAMINO', 'EN_SITIO'].includes(state)) expect(bodyOf(res).msg).to.contain('CANCELACIÓN');
        expect((await reload(offer.uuid)).state).to.equal(state);
      });
    }

    it("answers 404 for another generator's offer", async () => {
      const theirs = await offerIn(app.rt.orm.em.fork(), other, 'ABIERTA');
      const res = await post('no-asignacion', gen.auth, { uuid: theirs.uuid });
      expect(res.statusCode).to.equal(404);
      expect(res.body).to.deep.equal({ status: false, msg: 'OFERTA NO ENCONTRADA' });
    });

    it('answers 500 with its own message when the database fails, and changes nothing', async () => {
      const offer = await offerIn(app.rt.orm.em.fork(), gen, 'ABIERTA');
      const conn = app.rt.orm.em.fork().getConnection();
      await conn.execute(`create or replace function test_fail_transition() returns trigger language plpgsql as $$
        begin if new.offer_uuid = '${offer.uuid}' then raise exception 'simulated failure'; end if; return new; end $$`);
      await conn.execute(`create trigger test_fail_transition before insert on offer_transition for each row execute function test_fail_transition()`);
      try {
        const res = await post('no-asignacion', gen.auth, { uuid: offer.uuid });
        expect(res.statusCode).to.equal(500);
        expect(res.body).to.deep.equal({ status: false, msg: 'OCURRIÓ UN ERROR AL PROCESAR LA NO ASIGNACIÓN DEL SERVICIO' });
        expect((await reload(offer.uuid)).state).to.equal('ABIERTA');
      } finally {
        await conn.execute(`drop trigger test_fail_transition on offer_transition`);
        await conn.execute(`drop function test_fail_transition()`);
      }
    });
  });

  describe('POST /cancelacion', () => {
    for (const state of ['ASIGNADA', 'EN_CAMINO', 'EN_SITIO'] as const) {
      it(`cancels a service in ${state}, names the central, tells the central and the generator`, async () => {
        const offer = await offerIn(app.rt.orm.em.fork(), gen, state, prov);
        const res = await post('cancelacion', gen.auth, { uuid: offer.uuid, motivo: 'Vehículo ya encendió' });
        expect(res.statusCode).to.equal(200);
        expect(res.body).to.deep.equal({ status: true, msg: 'SE HA CANCELADO EXITOSAMENTE EL SERVICIO ASIGNADO A LA CENTRAL Grúas Norte' });
        expect(await reload(offer.uuid)).to.include({ state: 'CANCELADA', motivo: 'Vehículo ya encendió' });
        const ds = await deliveriesOf(app.rt.orm.em, offer.uuid);
        expect(ds.map((d) => [d.kind, d.url, d.requestBody.estado])).to.deep.equal([
          ['state', `${GENERATOR_URL}/estado`, 'CANCELADA'],
          ['novedad', `${CENTRAL_URL}/novedad`, 'CANCELADA'],
        ]);
        expect(String(ds[1].requestBody.detalle)).to.contain('Vehículo ya encendió');
      });
    }

    for (const state of ['ABIERTA', 'SIN_RESPUESTA', 'ACEPTADA', 'NO_ASIGNADA', 'INACTIVA', 'EXPIRADA'] as const) {
      it(`refuses an offer not assigned yet (${state}) with the spec's explanation naming the state`, async () => {
        const offer = await offerIn(app.rt.orm.em.fork(), gen, state);
        const res = await post('cancelacion', gen.auth, { uuid: offer.uuid });
        expect(res.statusCode).to.equal(403);
        expect(res.body).to.deep.equal({
          status: false,
          msg: `LA OFERTA AÚN NO HA SIDO ASIGNADA, POR LO TANTO NO ES POSIBLE PROCESAR LA CANCELACIÓN (ESTADO ${state})`,
          data: { estado: state },
        });
      });
    }

    for (const state of ['FINALIZADA', 'CANCELADA'] as const) {
      it(`refuses a service already ${state} with 403 naming the state`, async () => {
        const offer = await offerIn(app.rt.orm.em.fork(), gen, state, prov);
        const res = await post('cancelacion', gen.auth, { uuid: offer.uuid });
        expect(res.statusCode).to.equal(403);
        expect(bodyOf(res).msg).to.equal(`EL SERVICIO YA SE ENCUENTRA EN ESTADO ${state}, POR LO TANTO NO ES POSIBLE PROCESAR LA CANCELACIÓN`);
      });
    }

    it("answers 404 for another generator's service and 400 without uuid", async () => {
      const theirs = await offerIn(app.rt.orm.em.fork(), other, 'ASIGNADA', prov);
      const res = await post('cancelacion', gen.auth, { uuid: theirs.uuid });
      expect(res.statusCode).to.equal(404);
      expect(res.body).to.deep.equal({ status: false, msg: 'OFERTA NO ENCONTRADA' });
      const missing = await post('cancelacion', gen.auth, { motivo: 'x' });
      expect(missing.statusCode).to.equal(400);
      expect(bodyOf(missing).msg).to.equal("NO SE RECIBIÓ EL CAMPO 'uuid', REQUERIDO PARA PROCESAR LA CANCELACIÓN DEL SERVICIO");
    });
  });
});
