import { expect } from 'chai';
import { startApp, basic, type TestApp } from '../helpers/harness.js';
import { resetDb } from '../helpers/db.js';
import { makeApiUser, makeServiceType } from '../helpers/factories.js';

describe('HTTP edge', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
    await resetDb(app.rt.orm);
  });
  after(async () => app.close());

  it('GET /health answers 200 when PostgreSQL and Redis answer', async () => {
    const res = await app.client.get('health');
    expect(res.statusCode).to.equal(200);
    expect(res.body).to.include({ status: 'ok', postgres: 'ok', redis: 'ok' });
  });

  it('an unknown route answers 404 with the route-not-found body', async () => {
    const res = await app.client.get('api/v3/nope');
    expect(res.statusCode).to.equal(404);
    const body = res.body as unknown as Record<string, unknown>;
    expect(body.error).to.equal('Ruta no encontrada');
    expect(body).to.have.keys('error', 'message', 'documentation', 'suggestion', 'available_versions', 'requested_path', 'method', 'timestamp');
    expect(body.available_versions).to.have.keys('v1', 'v2', 'v3');
    expect(body.requested_path).to.equal('/api/v3/nope');
    expect(body.method).to.equal('GET');
  });

  it('a case variant of a path is an unknown route, never a page served without its security headers (issue 29 item 9)', async () => {
    for (const path of ['SEGUIMIENTO', 'Seguimiento/codigo', 'API/V3/DOCS', 'ADMIN/CONSOLE', 'Admin/Queues', 'API/V3/TYPES', 'api/v3/OFERTA']) {
      const res = await app.client.get(path);
      expect(res.statusCode, path).to.equal(404);
      expect((res.body as unknown as Record<string, unknown>).error, path).to.equal('Ruta no encontrada');
    }
    for (const path of ['seguimiento', 'api/v3/docs']) {
      const res = await app.client.get(path, { responseType: 'text' });
      expect(res.statusCode, path).to.equal(200);
      expect(res.headers['content-security-policy'], path).to.be.a('string');
    }
  });

  it('GET /types returns the bare array of service types to valid Basic credentials', async () => {
    const em = app.rt.orm.em.fork();
    await makeServiceType(em, { id: 1, type: 'GRUA', requiredOrigin: true, requiredDestination: true });
    await makeServiceType(em, { id: 3, type: 'CERRAJERIA', requiredOrigin: true, requiredDestination: false });
    const { user, password } = await makeApiUser(em);
    const res = await app.client.get('api/v3/types', { headers: { authorization: basic(user.username, password) } });
    expect(res.statusCode).to.equal(200);
    expect(res.body).to.deep.equal([
      { id: 1, type: 'GRUA', required_origin: true, required_destination: true },
      { id: 3, type: 'CERRAJERIA', required_origin: true, required_destination: false },
    ]);
  });
});

describe('factories', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
    await resetDb(app.rt.orm);
  });
  after(async () => app.close());

  it('build a central with coverage, a positioned technician and an offer', async () => {
    const { makeCentral, makeTechnician, makeOffer } = await import('../helpers/factories.js');
    const em = app.rt.orm.em.fork();
    await makeServiceType(em, { id: 1 });
    const { user } = await makeApiUser(em);
    const central = await makeCentral(em);
    const tech = await makeTechnician(em, central);
    const offer = await makeOffer(em, user);
    const [row] = await em.getConnection().execute<Array<{ covered: boolean; km: number }>>(
      `select exists(select 1 from central_area a where a.central_id = ? and st_intersects(a.area, o.origin::geometry)) as covered,
              st_distance(o.origin, t.position) / 1000 as km
         from offer o, technician t where o.uuid = ? and t.id = ?`,
      [central.id, offer.uuid, tech.id],
    );
    expect(row.covered).to.equal(true);
    expect(Number(row.km)).to.be.lessThan(0.01);
  });
});
