import { expect } from 'chai';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Technician, type ApiUser, type Central } from '../../src/db/entities/index.js';
import { invoke } from '../../src/api/invoke.js';
import { POSITION_MESSAGES } from '../../src/api/service/position.js';
import type { Runtime } from '../../src/main/runtime.js';
import { AUTH_MESSAGES } from '../../src/http/auth/index.js';
import { resetDb } from '../helpers/db.js';
import { BOGOTA, makeApiUser, makeCentral, makeServiceType, makeTechnician } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';

interface Row {
  lat: number;
  lng: number;
  available: boolean;
  position_at: Date | null;
  wkt: string | null;
}

/** PUT /posicion-tecnico invoked without HTTP (as the socket does): a technician as itself, or a central's API user. */
function updateTechnicianPosition(rt: Runtime, caller: ApiUser | { technicianId: number }, body: Record<string, unknown>) {
  if (!('technicianId' in caller)) return invoke(rt, 'updateTechnicianPosition', { apiUser: caller }, body);
  const dni = 'dniTecnico' in body ? String(body.dniTecnico) : `tech-${caller.technicianId}`;
  return invoke(rt, 'updateTechnicianPosition', { technician: { id: caller.technicianId, dni } }, { dniTecnico: dni, ...body });
}

describe('technician positions: PUT /posicion-tecnico', () => {
  let app: TestApp;
  let em: EntityManager;
  let owner: ApiUser;
  let other: ApiUser;
  let central: Central;
  let tech: Technician;
  const KEY = 'central-key-0123456789abcdef';
  const OTHER_KEY = 'other-key-0123456789abcdef00';

  const put = (body: unknown, key = KEY) =>
    app.client.put('api/v3/posicion-tecnico', { json: body, headers: { 'x-apikey': key } });
  const row = async (id: number): Promise<Row> => {
    const [r] = await em.getConnection().execute<Row[]>(
      `select lat, lng, available, position_at, st_astext(position) as wkt from technician where id = ?`,
      [id],
    );
    return r;
  };

  before(async () => {
    app = await startApp();
    await resetDb(app.rt.orm);
    em = app.rt.orm.em.fork();
    await makeServiceType(em, { id: 1 });
    owner = (await makeApiUser(em, { apiKey: KEY, endpoints: ['/aceptacion', '/posicion-tecnico'] })).user;
    other = (await makeApiUser(em, { apiKey: OTHER_KEY, endpoints: ['*'] })).user;
    central = await makeCentral(em, { apiUser: owner });
    tech = await makeTechnician(em, central, { dni: '1012345678', position: null });
  });
  after(async () => app.close());

  it('records the position, its time and the availability (200)', async () => {
    const before = Date.now();
    const res = await put({ dniTecnico: '1012345678', latitud: 4.7, longitud: -74.05, disponible: false });
    expect(res.statusCode).to.equal(200);
    expect(res.body).to.deep.equal({ status: true, data: POSITION_MESSAGES.ok });
    const r = await row(tech.id);
    expect(r).to.include({ lat: 4.7, lng: -74.05, available: false, wkt: 'POINT(-74.05 4.7)' });
    expect(new Date(r.position_at!).getTime()).to.be.at.least(before - 1000);
    // availability unchanged when not sent
    await put({ dniTecnico: '1012345678', latitud: BOGOTA.lat, longitud: BOGOTA.lng });
    expect(await row(tech.id)).to.include({ lat: BOGOTA.lat, available: false });
    await put({ dniTecnico: '1012345678', latitud: BOGOTA.lat, longitud: BOGOTA.lng, disponible: true });
    expect(await row(tech.id)).to.include({ available: true });
  });

  it('404 NO SE ENCONTRÓ EL TÉCNICO for a technician that is not the caller’s, or unknown', async () => {
    const res = await put({ dniTecnico: '1012345678', latitud: 4.7, longitud: -74.05 }, OTHER_KEY);
    expect(res.statusCode).to.equal(404);
    expect(res.body).to.deep.equal({ status: false, data: 'NO SE ENCONTRÓ EL TÉCNICO' });
    const unknown = await put({ dniTecnico: '999', latitud: 4.7, longitud: -74.05 });
    expect(unknown.statusCode).to.equal(404);
    expect((await row(tech.id)).lat).to.equal(BOGOTA.lat);
  });

  it('400 with a message naming the field for a bad body', async () => {
    const cases: Array<[unknown, string]> = [
      [{ latitud: 4.7, longitud: -74 }, POSITION_MESSAGES.dni],
      [{ dniTecnico: '', latitud: 4.7, longitud: -74 }, POSITION_MESSAGES.dni],
      [{ dniTecnico: '1012345678', longitud: -74 }, POSITION_MESSAGES.latitud],
      [{ dniTecnico: '1012345678', latitud: 90.5, longitud: -74 }, POSITION_MESSAGES.latitud],
      [{ dniTecnico: '1012345678', latitud: '4.7', longitud: -74 }, POSITION_MESSAGES.latitud],
      [{ dniTecnico: '1012345678', latitud: 4.7, longitud: -180.01 }, POSITION_MESSAGES.longitud],
      [{ dniTecnico: '1012345678', latitud: 4.7, longitud: -74, disponible: 'SI' }, POSITION_MESSAGES.disponible],
      [{ dniTecnico: '1012345678', latitud: 0, longitud: 0 }, POSITION_MESSAGES.zero],
      [[1, 2], POSITION_MESSAGES.body],
    ];
    for (const [body, msg] of cases) {
      const res = await put(body);
      expect(res.statusCode, JSON.stringify(body)).to.equal(400);
      expect(res.body).to.deep.equal({ status: false, data: msg });
    }
  });

  it('uses the API key validator (spec 5.2): missing key 401, endpoint not permitted 403', async () => {
    const missing = await app.client.put('api/v3/posicion-tecnico', { json: {} });
    expect(missing.statusCode).to.equal(401);
    expect(missing.body).to.include({ status: false, msg: AUTH_MESSAGES.keyMissing });
    const key = 'no-permission-key-0123456789';
    await makeApiUser(em, { apiKey: key, endpoints: ['/aceptacion'] });
    const forbidden = await put({ dniTecnico: '1012345678', latitud: 4.7, longitud: -74 }, key);
    expect(forbidden.statusCode).to.equal(403);
    expect(forbidden.body).to.include({ requestedEndpoint: '/posicion-tecnico' });
  });

  it('the real-time variant: an authenticated technician reports its own position', async () => {
    const res = await updateTechnicianPosition(app.rt, { technicianId: tech.id }, { latitud: 4.65, longitud: -74.1, disponible: true });
    expect(res).to.deep.equal({ status: 200, body: { status: true, data: POSITION_MESSAGES.ok } });
    expect(await row(tech.id)).to.include({ lat: 4.65, lng: -74.1 });
    const bad = await updateTechnicianPosition(app.rt, { technicianId: tech.id }, { latitud: 100, longitud: -74.1 });
    expect(bad).to.deep.equal({ status: 400, body: { status: false, data: POSITION_MESSAGES.latitud } });
    const gone = await updateTechnicianPosition(app.rt, { technicianId: 987654 }, { latitud: 4.6, longitud: -74.1 });
    expect(gone.status).to.equal(404);
    // and a central's caller object works the same outside HTTP
    const viaOther = await updateTechnicianPosition(app.rt, other, { dniTecnico: '1012345678', latitud: 4.6, longitud: -74.1 });
    expect(viaOther.status).to.equal(404);
  });
});
