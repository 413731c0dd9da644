import { expect } from 'chai';
import { Offer, OfferTransition, Technician } from '../../src/db/entities/index.js';
import { invoke } from '../../src/api/invoke.js';
import type { Runtime } from '../../src/main/runtime.js';

/** PUT /estado-servicio invoked without HTTP, as the socket does: the technician as itself (D11). */
const reportProgress = (rt: Runtime, caller: { technicianId: number }, body: unknown) =>
  invoke(rt, 'reportProgress', { technician: { id: caller.technicianId, dni: '' } }, body);
import type { TestApp } from '../helpers/harness.js';
import { bodyOf, deliveriesOf, makeProvider, offerIn, startOps, type Generator, type Provider } from '../helpers/ops.js';

describe('PUT /estado-servicio and reportProgress (D11)', () => {
  let app: TestApp;
  let gen: Generator;
  let prov: Provider;
  let rival: Provider;

  before(async () => {
    const suite = await startOps({ provider: { name: 'Grúas Norte' } });
    ({ app, gen, prov } = suite);
    rival = await makeProvider(suite.em, { name: 'Grúas Sur' });
  });
  after(async () => app.close());

  const put = (apiKey: string | undefined, json: unknown) =>
    app.client.put('api/v3/estado-servicio', { headers: apiKey ? { 'x-apikey': apiKey } : {}, json });
  const reload = (uuid: string) => app.rt.orm.em.fork().findOneOrFail(Offer, uuid);

  it('moves ASIGNADA → EN_CAMINO → EN_SITIO, records the position, notifies the generator each time', async () => {
    const offer = await offerIn(app.rt.orm.em.fork(), gen, 'ASIGNADA', prov);
    const a = await put(prov.apiKey, { id: offer.uuid, estado: 'EN_CAMINO', latitudTecnico: '4.7001', longitudTecnico: '-74.0502' });
    expect(a.statusCode).to.equal(200);
    expect(a.body).to.deep.equal({ status: true, data: 'ESTADO DEL SERVICIO ACTUALIZADO A EN_CAMINO' });
    const b = await put(prov.apiKey, { id: offer.uuid, estado: 'EN_SITIO' });
    expect(b.body).to.deep.equal({ status: true, data: 'ESTADO DEL SERVICIO ACTUALIZADO A EN_SITIO' });
    expect((await reload(offer.uuid)).state).to.equal('EN_SITIO');
    const audit = await app.rt.orm.em.fork().find(OfferTransition, { offer: offer.uuid }, { orderBy: { id: 'asc' } });
    expect(audit.map((t) => [t.fromState, t.toState, t.actor, t.techLat, t.techLng])).to.deep.equal([
      ['ASIGNADA', 'EN_CAMINO', `central:${prov.central.nit}`, 4.7001, -74.0502],
      ['EN_CAMINO', 'EN_SITIO', `central:${prov.central.nit}`, null, null],
    ]);
    const tech = await app.rt.orm.em.fork().findOneOrFail(Technician, prov.technician.id);
    expect([tech.lat, tech.lng]).to.deep.equal([4.7001, -74.0502]);
    const ds = await deliveriesOf(app.rt.orm.em, offer.uuid);
    expect(ds.map((d) => d.requestBody.estado)).to.deep.equal(['EN_CAMINO', 'EN_SITIO']);
  });

  it('answers 200 without moving when the service is already in that state', async () => {
    const offer = await offerIn(app.rt.orm.em.fork(), gen, 'EN_CAMINO', prov);
    const res = await put(prov.apiKey, { id: offer.uuid, estado: 'EN_CAMINO' });
    expect(res.statusCode).to.equal(200);
    expect(res.body).to.deep.equal({ status: true, data: 'EL SERVICIO YA SE ENCUENTRA EN ESTADO EN_CAMINO' });
    expect(await app.rt.orm.em.fork().count(OfferTransition, { offer: offer.uuid })).to.equal(0);
    expect(await deliveriesOf(app.rt.orm.em, offer.uuid)).to.have.length(0);
  });

  for (const [state, estado] of [
    ['ASIGNADA', 'EN_SITIO'],
    ['EN_SITIO', 'EN_CAMINO'],
    ['FINALIZADA', 'EN_CAMINO'],
    ['CANCELADA', 'EN_SITIO'],
  ] as const) {
    it(`refuses ${state} → ${estado} with 403 naming the state`, async () => {
      const offer = await offerIn(app.rt.orm.em.fork(), gen, state, prov);
      const res = await put(prov.apiKey, { id: offer.uuid, estado });
      expect(res.statusCode).to.equal(403);
      expect(res.body).to.deep.equal({ status: false, data: `NO ES POSIBLE CAMBIAR EL ESTADO A ${estado}: EL SERVICIO ESTÁ EN ESTADO ${state}` });
      expect((await reload(offer.uuid)).state).to.equal(state);
    });
  }

  it('answers 404 Oferta no encontrada to a central that is not the assigned one, and for unknown ids', async () => {
    const offer = await offerIn(app.rt.orm.em.fork(), gen, 'ASIGNADA', prov);
    const notAssigned = await offerIn(app.rt.orm.em.fork(), gen, 'ACEPTADA');
    for (const [key, id] of [
      [rival.apiKey, offer.uuid],
      [prov.apiKey, '2c9a7b1e-5d4f-4a3b-9c8d-7e6f5a4b3c2d'],
      [prov.apiKey, notAssigned.uuid],
      [prov.apiKey, 'nope'],
    ]) {
      const res = await put(key, { id, estado: 'EN_CAMINO' });
      expect(res.statusCode).to.equal(404);
      expect(res.body).to.deep.equal({ status: false, data: 'Oferta no encontrada' });
    }
    expect((await reload(offer.uuid)).state).to.equal('ASIGNADA');
  });

  it('answers 400 for a missing id, an estado other than EN_CAMINO/EN_SITIO (finalize is POST /finalize) and bad coordinates', async () => {
    const offer = await offerIn(app.rt.orm.em.fork(), gen, 'ASIGNADA', prov);
    const cases: Array<[unknown, string]> = [
      [{ estado: 'EN_CAMINO' }, "EL CAMPO 'id' ES REQUERIDO PARA ACTUALIZAR EL ESTADO DEL SERVICIO"],
      [{ id: offer.uuid, estado: 'FINALIZADA' }, "EL CAMPO 'estado' DEBE SER EN_CAMINO O EN_SITIO (LA FINALIZACIÓN SE REGISTRA CON POST /finalize)"],
      [{ id: offer.uuid }, "EL CAMPO 'estado' DEBE SER EN_CAMINO O EN_SITIO (LA FINALIZACIÓN SE REGISTRA CON POST /finalize)"],
      [{ id: offer.uuid, estado: 'EN_CAMINO', latitudTecnico: 'norte', longitudTecnico: '-74' }, 'LAS COORDENADAS DEL TÉCNICO NO SON VÁLIDAS'],
      [{ id: offer.uuid, estado: 'EN_CAMINO', latitudTecnico: 95, longitudTecnico: -74 }, 'LAS COORDENADAS DEL TÉCNICO NO SON VÁLIDAS'],
    ];
    for (const [json, data] of cases) {
      const res = await put(prov.apiKey, json);
      expect(res.statusCode).to.equal(400);
      expect(res.body).to.deep.equal({ status: false, data });
    }
    expect((await reload(offer.uuid)).state).to.equal('ASIGNADA');
  });

  it('uses the API key envelope for authentication failures', async () => {
    const res = await put(undefined, { id: 'x', estado: 'EN_CAMINO' });
    expect(res.statusCode).to.equal(401);
    expect(bodyOf(res)).to.include({ status: false, msg: 'No se ha brindado la clave de acceso.' });
  });

  it('reportProgress takes the assigned technician (real-time channel) and refuses any other', async () => {
    const offer = await offerIn(app.rt.orm.em.fork(), gen, 'ASIGNADA', prov);
    const other = await reportProgress(app.rt, { technicianId: rival.technician.id }, { id: offer.uuid, estado: 'EN_CAMINO' });
    expect(other).to.deep.equal({ status: 404, body: { status: false, data: 'Oferta no encontrada' } });
    const mine = await reportProgress(app.rt, { technicianId: prov.technician.id }, { id: offer.uuid, estado: 'EN_CAMINO', latitudTecnico: 4.61, longitudTecnico: -74.08 });
    expect(mine).to.deep.equal({ status: 200, body: { status: true, data: 'ESTADO DEL SERVICIO ACTUALIZADO A EN_CAMINO' } });
    const audit = await app.rt.orm.em.fork().findOneOrFail(OfferTransition, { offer: offer.uuid });
    expect(audit).to.include({ actor: `technician:${prov.technician.id}`, techLat: 4.61, techLng: -74.08 });
    const bad = await reportProgress(app.rt, { technicianId: prov.technician.id }, undefined);
    expect(bad.status).to.equal(400);
  });
});
