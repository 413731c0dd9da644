/**
 * PUT /api/v3/servicios/{codigoServicio}/tecnico (D20), against the real
 * PostgreSQL, Redis, workers and sockets: the assigned central gives its
 * service to another of its technicians. The old technician's socket gets
 * `service.released`, the new one's `service.assigned` with `servicio`, the
 * generator's receiver a state notification with `detalle: "CAMBIO DE
 * TÉCNICO"` (in the delivery log), the customer's socket an `offer.state` and
 * its follow-up the new technician. Each bad request: a 4xx in the data
 * envelope, nothing changed, nothing sent.
 */
import { expect } from 'chai';
import nock from 'nock';
import { randomBytes } from 'node:crypto';
import { Offer, OfferTransition, Technician, WebhookDelivery } from '../../src/db/entities/index.js';
import { technicianActive } from '../../src/domain/offers/operations/technicianChange.js';
import { followUp } from '../../src/domain/tracking/followUp.js';
import { issueTrackingToken } from '../../src/domain/tracking/tokens.js';
import type { TestApp } from '../helpers/harness.js';
import { makeTechnician } from '../helpers/factories.js';
import { GENERATOR_URL, deliveriesOf, makeProvider, offerIn, startOps, type Body, type Generator, type Provider } from '../helpers/ops.js';
import { connect, wsUrl, type TestSocket } from '../helpers/sockets.js';
import { waitFor } from '../helpers/wait.js';

const code = () => `SRV-${randomBytes(4).toString('hex').toUpperCase()}`;

describe('PUT /servicios/{codigoServicio}/tecnico: changing the technician (D20)', () => {
  let app: TestApp;
  let gen: Generator;
  let prov: Provider;
  /** another central, with its own technician */
  let rival: Provider;
  const sockets: TestSocket[] = [];
  const fork = () => app.rt.orm.em.fork();

  before(async () => {
    const suite = await startOps({ workers: true, env: { SWEEP_INTERVAL_MS: '30000' }, provider: { name: 'Grúas Norte' } });
    ({ app, gen, prov } = suite);
    rival = await makeProvider(suite.em, { name: 'Grúas Sur' });
  });
  afterEach(() => nock.cleanAll());
  after(async () => {
    for (const s of sockets) await s.close().catch(() => undefined);
    await app.close();
  });

  const change = (codigo: string, body: unknown, key = prov.apiKey) =>
    app.client
      .put(`api/v3/servicios/${encodeURIComponent(codigo)}/tecnico`, { headers: { 'x-apikey': key }, json: body })
      .then((r) => ({ code: r.statusCode, body: r.body as unknown }));
  /** A service of `gen` assigned to the provider's technician `t`, which it holds (D16). */
  const service = async (state: 'ASIGNADA' | 'EN_CAMINO' | 'EN_SITIO' | 'FINALIZADA', t: Technician, p: Provider = prov) => {
    const offer = await offerIn(fork(), gen, state, p, { assignedTechnician: t, codigoServicio: code(), codigoSolicitud: code() });
    if (state !== 'FINALIZADA') await fork().nativeUpdate(Technician, { id: t.id }, { busyOfferUuid: offer.uuid });
    return offer;
  };
  const technicianSocket = async (t: Technician, p: Provider = prov) => {
    const s = await connect(wsUrl(app.url), { headers: { 'x-apikey': p.apiKey, 'x-dni-tecnico': t.dni } });
    sockets.push(s);
    return s;
  };
  const load = (uuid: string) => fork().findOneOrFail(Offer, { uuid }, { populate: ['assignedTechnician'] });
  const busyOf = async (t: Technician) => (await fork().findOneOrFail(Technician, t.id)).busyOfferUuid ?? null;

  for (const state of ['ASIGNADA', 'EN_CAMINO'] as const) {
    it(`${state}: the new technician takes it; both technicians, the generator and the customer are told`, async () => {
      const old = await makeTechnician(fork(), prov.central, { names: `Ana Ruiz ${state}` });
      const fresh = await makeTechnician(fork(), prov.central, { names: `Pedro Gómez ${state}` });
      const offer = await service(state, old);
      const received: Body[] = [];
      nock(GENERATOR_URL)
        .put('/estado')
        .reply(200, (_uri, body) => {
          received.push(body as Body);
          return 'ok';
        });
      const oldSocket = await technicianSocket(old);
      // A technician's socket is resynced on connect with its active service (D20): the old one's comes first.
      const resynced = (await oldSocket.next('service.assigned')).data as { uuid: string };
      expect(resynced.uuid).to.equal(offer.uuid);
      const newSocket = await technicianSocket(fresh);
      const { token } = await issueTrackingToken(fork(), offer);
      const customer = await connect(wsUrl(app.url), { headers: { authorization: `Bearer ${token}` } });
      sockets.push(customer);
      const before = await followUp(fork(), await load(offer.uuid), { public: false, averageSpeedKmh: 30 });
      expect(before.tecnico?.nombre).to.equal(old.names);

      const res = await change(offer.codigoServicio!, { dniTecnico: fresh.dni });
      expect(res).to.deep.equal({ code: 200, body: { status: true, data: `EL SERVICIO ${offer.codigoServicio} QUEDÓ A CARGO DEL TÉCNICO ${fresh.names}` } });

      // the service: the new technician, the same state; the old one free, the new one held (D16)
      const after = await load(offer.uuid);
      expect([after.state, after.assignedTechnician?.id]).to.deep.equal([state, fresh.id]);
      expect(await busyOf(old)).to.equal(null);
      expect(await busyOf(fresh)).to.equal(offer.uuid);
      // the audit row: who changed whom
      const [audit] = await fork().find(OfferTransition, { offer: offer.uuid });
      expect(audit).to.deep.include({ fromState: state, toState: state, actor: `central:${prov.central.nit}` });
      expect(audit.detail).to.deep.equal({ motivo: 'CAMBIO DE TÉCNICO', anterior: old.dni, nuevo: fresh.dni });

      // the technicians
      const released = await oldSocket.next('service.released');
      expect(released.data).to.deep.equal({ uuid: offer.uuid, codigoServicio: offer.codigoServicio, motivo: 'CAMBIO DE TÉCNICO' });
      const assigned = (await newSocket.next('service.assigned')).data as { uuid: string; estado: string; servicio: Record<string, unknown> };
      expect([assigned.uuid, assigned.estado]).to.deep.equal([offer.uuid, state]);
      expect(assigned.servicio).to.deep.include({ uuid: offer.uuid, codigoServicio: offer.codigoServicio, tecnico: { dniTecnico: fresh.dni, nombre: fresh.names } });
      expect(JSON.stringify(assigned.servicio)).to.not.include('telefono');
      expect(oldSocket.events('service.assigned'), 'the old technician is not given it (only its resync on connect)').to.have.length(1);

      // the generator: a state notification with the same estado, in the delivery log
      await waitFor(() => received.length === 1, 8000, 'the generator’s state notification');
      expect(received[0]).to.deep.include({ id: offer.uuid, estado: state, detalle: 'CAMBIO DE TÉCNICO', codigoServicio: offer.codigoServicio });
      const [delivery] = await waitFor(async () => {
        const ds = await deliveriesOf(app.rt.orm.em, offer.uuid);
        return ds.length === 1 && ds[0].state === 'ok' ? ds : null;
      }, 8000, 'the delivery settled');
      expect(delivery.kind).to.equal('state');
      expect(delivery.receiver!.id).to.equal(gen.user.id);
      expect(delivery.requestBody).to.deep.include({ estado: state, detalle: 'CAMBIO DE TÉCNICO' });

      // the customer: its page reloads on offer.state and the follow-up reads the new technician
      const update = await customer.next('offer.state');
      expect(update.data).to.deep.include({ uuid: offer.uuid, estado: state, anterior: state });
      const shown = await followUp(fork(), await load(offer.uuid), { public: false, averageSpeedKmh: 30 });
      expect(shown.tecnico).to.deep.equal({ nombre: fresh.names, telefono: fresh.phone, identificador: fresh.identifier ?? null });
      expect(shown.timeline, 'no step of its own in the customer’s timeline').to.deep.equal(before.timeline);
    });
  }

  describe('refused: a 4xx in the data envelope, nothing changed, nothing sent', () => {
    let offer: Offer;
    let spare: Technician;
    let socket: TestSocket;

    before(async () => {
      const current = await makeTechnician(fork(), prov.central, { names: 'Técnico Actual' });
      offer = await service('ASIGNADA', current);
      spare = await makeTechnician(fork(), prov.central, { names: 'Técnico Libre' });
      socket = await technicianSocket(current);
      await socket.next('service.assigned'); // its resync on connect (D20)
    });

    /** Asserts the answer, then that the service, the technicians, the audit and the deliveries are as they were. */
    const refused = async (codigo: string, body: unknown, expected: { code: number; data: string }, key = prov.apiKey) => {
      const deliveriesBefore = await fork().count(WebhookDelivery, {});
      const transitionsBefore = await fork().count(OfferTransition, {});
      expect(await change(codigo, body, key)).to.deep.equal({ code: expected.code, body: { status: false, data: expected.data } });
      const now = await load(offer.uuid);
      expect([now.state, now.assignedTechnician?.id]).to.deep.equal(['ASIGNADA', offer.assignedTechnician!.id]);
      expect(await busyOf(spare)).to.equal(null);
      expect(await fork().count(WebhookDelivery, {}), 'nothing sent').to.equal(deliveriesBefore);
      expect(await fork().count(OfferTransition, {}), 'nothing audited').to.equal(transitionsBefore);
    };

    it('an unknown codigoServicio: 404', async () => {
      await refused('SRV-NOEXISTE', { dniTecnico: spare.dni }, { code: 404, data: 'SERVICIO NO ENCONTRADO' });
    });

    it('a central that is not the assigned one: 404, as an unknown service (its existence is not told)', async () => {
      await refused(offer.codigoServicio!, { dniTecnico: rival.technician.dni }, { code: 404, data: 'SERVICIO NO ENCONTRADO' }, rival.apiKey);
    });

    it('a technician of another central, or unknown: 404 NO SE ENCONTRÓ EL TÉCNICO', async () => {
      await refused(offer.codigoServicio!, { dniTecnico: rival.technician.dni }, { code: 404, data: 'NO SE ENCONTRÓ EL TÉCNICO' });
      await refused(offer.codigoServicio!, { dniTecnico: '000' }, { code: 404, data: 'NO SE ENCONTRÓ EL TÉCNICO' });
    });

    it('a technician busy with another service: 400', async () => {
      const held = await makeTechnician(fork(), prov.central, { names: 'Técnico Ocupado' });
      await service('EN_CAMINO', held);
      await refused(offer.codigoServicio!, { dniTecnico: held.dni }, { code: 400, data: 'EL TÉCNICO TIENE OTRO SERVICIO EN CURSO' });
    });

    it('the same technician: 400', async () => {
      const current = await fork().findOneOrFail(Technician, offer.assignedTechnician!.id);
      await refused(offer.codigoServicio!, { dniTecnico: current.dni }, { code: 400, data: 'EL TÉCNICO YA ESTÁ ASIGNADO A ESTE SERVICIO' });
    });

    it('an INACTIVO technician: 400', async () => {
      const inactive = await makeTechnician(fork(), prov.central, { names: 'Técnico Inactivo' });
      await fork().nativeUpdate(Technician, { id: inactive.id }, { status: 'INACTIVO' });
      await refused(offer.codigoServicio!, { dniTecnico: inactive.dni }, { code: 400, data: 'EL TÉCNICO NO ESTÁ ACTIVO' });
      expect(technicianActive({ status: 'ACTIVO' })).to.equal(true);
    });

    it('a state other than ASIGNADA or EN_CAMINO: 403 naming it', async () => {
      for (const state of ['EN_SITIO', 'FINALIZADA'] as const) {
        const t = await makeTechnician(fork(), prov.central);
        const other = await service(state, t);
        const before = await fork().count(WebhookDelivery, { offer: other.uuid });
        expect(await change(other.codigoServicio!, { dniTecnico: spare.dni })).to.deep.equal({
          code: 403,
          body: { status: false, data: `NO ES POSIBLE CAMBIAR EL TÉCNICO: EL SERVICIO ESTÁ EN ESTADO ${state}` },
        });
        expect((await load(other.uuid)).assignedTechnician?.id).to.equal(t.id);
        expect(await fork().count(WebhookDelivery, { offer: other.uuid })).to.equal(before);
      }
      expect(await busyOf(spare)).to.equal(null);
    });

    it('a body without dniTecnico: 400 naming it; no key: 401', async () => {
      await refused(offer.codigoServicio!, {}, { code: 400, data: "EL CAMPO 'dniTecnico' ES REQUERIDO: EL DOCUMENTO DEL NUEVO TÉCNICO" });
      const res = await app.client.put(`api/v3/servicios/${offer.codigoServicio}/tecnico`, { json: { dniTecnico: spare.dni } });
      expect(res.statusCode).to.equal(401);
    });

    it('no technician was told anything', async () => {
      // A sentinel published on the same bus after every refusal arrives after anything they could have published.
      await app.rt.events.publish({ kind: 'technician', technicianId: offer.assignedTechnician!.id }, 'test.sentinel', {});
      await socket.next('test.sentinel');
      expect(socket.frames.filter((f) => f.event.startsWith('service.')).map((f) => f.event)).to.deep.equal(['service.assigned']);
    });
  });
});
