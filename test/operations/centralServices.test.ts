/**
 * GET /api/v3/centrales/servicios (D20): a central reads its own services,
 * newest first, 50 a page, each with its `servicio`, state, technician and
 * timeline; never another central's, never the customer's phone; two
 * statements a page whatever its size; bad input answers 400 in the
 * route's envelope.
 */
import { expect } from 'chai';
import { Central, OfferTransition } from '../../src/db/entities/index.js';
import { CENTRAL_SERVICES_MESSAGES as M } from '../../src/api/providers/centralServices.js';
import { makeCentral, makeTechnician } from '../helpers/factories.js';
import { statementsOf } from '../helpers/statements.js';
import { makeProvider, offerIn, startOps, type Generator, type Provider } from '../helpers/ops.js';
import type { TestApp } from '../helpers/harness.js';

const PHONE = '3109876543';

interface Page {
  page: number;
  pageSize: number;
  total: number;
  servicios: Array<{
    uuid: string;
    estado: string;
    creadaEn: string;
    central: { nit: string; nombre: string };
    tecnico: { dniTecnico: string; nombre: string } | null;
    servicio: Record<string, unknown>;
    timeline: Array<{ anterior: string | null; estado: string; fecha: string }>;
  }>;
}

describe('GET /api/v3/centrales/servicios (D20)', () => {
  let app: TestApp;
  let gen: Generator;
  let prov: Provider;
  let stranger: Provider;
  const mine: string[] = [];
  let newest = '';
  let secondCentral = '';

  before(async () => {
    const suite = await startOps();
    ({ app, gen, prov } = suite);
    const em = suite.em;
    stranger = await makeProvider(em, { name: 'Grúas Ajenas' });
    const t0 = Date.now() - 3600_000;
    // 51 services of prov's central, one a second apart (the newest last), a third of them ASIGNADA
    for (let i = 0; i < 51; i++) {
      const offer = await offerIn(em, gen, i % 3 === 0 ? 'ASIGNADA' : 'EN_CAMINO', prov, {
        createdAt: new Date(t0 + i * 1000),
        codigoServicio: `SV-T${String(i).padStart(5, '0')}`,
        telefonoCliente: PHONE,
      });
      mine.push(offer.uuid);
    }
    // a second central of the same API user: its services are the user's too
    const central = await makeCentral(em, { apiUser: prov.user, name: 'Grúas de Prueba Sur', serviceTypes: [1, 2] });
    const tech = await makeTechnician(em, central);
    const other = await offerIn(em, gen, 'ASIGNADA', undefined, {
      createdAt: new Date(t0 + 60_000),
      assignedCentral: central,
      assignedTechnician: tech,
      fechaCita: '2030-02-01',
      horaCita: '08:00',
      stops: [{ direccion: 'Calle 1 # 2-3', latitud: 4.6, longitud: -74.1, puntoReferencia: 'la esquina', ciudad: 'Bogotá', departamento: 'Cundinamarca', addedAt: new Date().toISOString() }],
      telefonoCliente: PHONE,
    });
    secondCentral = other.uuid;
    newest = other.uuid;
    em.create(OfferTransition, { offer: other, fromState: null, toState: 'ABIERTA', actor: 'test', at: new Date(t0 + 60_000) });
    em.create(OfferTransition, { offer: other, fromState: 'ABIERTA', toState: 'ASIGNADA', actor: 'test', at: new Date(t0 + 61_000) });
    await em.flush();
    // another central's services, newer than all of them: never shown
    await offerIn(em, gen, 'ASIGNADA', stranger, { createdAt: new Date(t0 + 120_000) });
    await offerIn(em, gen, 'EN_CAMINO', stranger, { createdAt: new Date(t0 + 121_000) });
    // an offer no central was assigned
    await offerIn(em, gen, 'ABIERTA');
  });
  after(() => app.close());

  const list = (key: string, searchParams: Record<string, string> = {}) =>
    app.client.get('api/v3/centrales/servicios', { headers: { 'x-apikey': key }, searchParams }).then((r) => ({ status: r.statusCode, body: r.body as unknown as Record<string, unknown> }));
  const page = async (key: string, searchParams: Record<string, string> = {}) => {
    const res = await list(key, searchParams);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ status: true, msg: M.ok });
    return res.body.data as Page;
  };

  it('newest first, 50 a page, with the total; a page past the end is empty with the same total', async () => {
    const first = await page(prov.apiKey);
    expect(first).to.include({ page: 1, pageSize: 50, total: 52 });
    expect(first.servicios).to.have.length(50);
    const expected = [newest, ...[...mine].reverse()];
    expect(first.servicios.map((s) => s.uuid)).to.deep.equal(expected.slice(0, 50));
    const second = await page(prov.apiKey, { page: '2' });
    expect(second).to.include({ page: 2, total: 52 });
    expect(second.servicios.map((s) => s.uuid)).to.deep.equal(expected.slice(50));
    const third = await page(prov.apiKey, { page: '3' });
    expect(third).to.deep.equal({ page: 3, pageSize: 50, total: 52, servicios: [] });
  });

  it('each service with its servicio, state, central, technician and timeline; never the customer’s phone', async () => {
    const [s] = (await page(prov.apiKey)).servicios;
    expect(s.uuid).to.equal(secondCentral);
    expect(s.estado).to.equal('ASIGNADA');
    expect(s.central).to.deep.equal({ nit: (await app.rt.orm.em.fork().findOneOrFail(Central, { name: 'Grúas de Prueba Sur' })).nit, nombre: 'Grúas de Prueba Sur' });
    expect(s.tecnico).to.have.keys('dniTecnico', 'nombre');
    expect(s.servicio).to.deep.include({ uuid: secondCentral, tipoServicio: 1, nombreTipoServicio: 'GRUA', fechaCita: '2030-02-01', horaCita: '08:00', guardian: 'NO', tecnico: s.tecnico });
    expect(s.servicio.paradas).to.deep.equal([{ direccion: 'Calle 1 # 2-3', latitud: 4.6, longitud: -74.1, puntoReferencia: 'la esquina', ciudad: 'Bogotá', departamento: 'Cundinamarca' }]);
    expect(s.timeline.map((t) => [t.anterior, t.estado])).to.deep.equal([
      [null, 'ABIERTA'],
      ['ABIERTA', 'ASIGNADA'],
    ]);
    const all = await list(prov.apiKey);
    expect(JSON.stringify(all.body)).to.not.contain(PHONE);
  });

  it('filtered by estado', async () => {
    const asignadas = await page(prov.apiKey, { estado: 'ASIGNADA' });
    expect(asignadas.total).to.equal(18);
    expect(asignadas.servicios.every((s) => s.estado === 'ASIGNADA')).to.equal(true);
    expect((await page(prov.apiKey, { estado: 'EN_CAMINO' })).total).to.equal(34);
    expect((await page(prov.apiKey, { estado: 'FINALIZADA' })).servicios).to.deep.equal([]);
  });

  it('another central’s services are never shown; a generator without centrals sees none', async () => {
    const theirs = await page(stranger.apiKey);
    expect(theirs.total).to.equal(2);
    expect(theirs.servicios.some((s) => mine.includes(s.uuid) || s.uuid === secondCentral)).to.equal(false);
    const first = await page(prov.apiKey);
    const strangers = (await page(stranger.apiKey)).servicios.map((s) => s.uuid);
    expect(first.servicios.some((s) => strangers.includes(s.uuid))).to.equal(false);
  });

  it('two statements a page whatever its size (the page with its total, the page’s moves), besides the key’s lookup', async () => {
    const seen = (await statementsOf(() => page(prov.apiKey))).filter((q) => !/from "api_user"/.test(q));
    expect(seen, seen.join('\n---\n')).to.have.length(2);
    expect(seen[0]).to.match(/from offer o/);
    expect(seen[1]).to.match(/from offer_transition/);
  });

  it('bad input: 400 in the route’s envelope; no key: refused', async () => {
    expect(await list(prov.apiKey, { estado: 'PERDIDA' })).to.deep.equal({ status: 400, body: { status: false, msg: M.estado } });
    expect(await list(prov.apiKey, { page: '0' })).to.deep.equal({ status: 400, body: { status: false, msg: M.page } });
    expect(await list(prov.apiKey, { page: 'dos' })).to.deep.equal({ status: 400, body: { status: false, msg: M.page } });
    const none = await app.client.get('api/v3/centrales/servicios');
    expect(none.statusCode).to.equal(401);
  });
});
