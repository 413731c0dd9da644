import { expect } from 'chai';
import { AUTH_MESSAGES } from '../../src/http/auth/index.js';
import { TECHNICIAN_AUTH_MESSAGES as SOCKET_AUTH_MESSAGES } from '../../src/auth/technician.js';
import { resetDb } from '../helpers/db.js';
import { makeServiceType } from '../helpers/factories.js';
import { basic, startApp, type TestApp } from '../helpers/harness.js';
import { connect, makeCrew, makeGenerator, makeOperatorToken, refusal, wsUrl, type Crew, type Generator } from '../helpers/sockets.js';
import { waitFor } from '../helpers/wait.js';

describe('real time: endpoints and authentication at the upgrade', () => {
  let app: TestApp;
  let gen: Generator;
  let crew: Crew;
  let otherCrew: Crew;
  let token: string;

  before(async () => {
    app = await startApp();
    await resetDb(app.rt.orm);
    const em = app.rt.orm.em.fork();
    await makeServiceType(em);
    gen = await makeGenerator(em);
    crew = await makeCrew(em);
    otherCrew = await makeCrew(em);
    token = await makeOperatorToken(em, app.rt.config.jwtSecret);
  });
  after(async () => app.close());

  for (const path of ['/v1', '/v2', '/v3']) {
    it(`${path} accepts a generator and sends connected with its socketId`, async () => {
      const s = await connect(wsUrl(app.url, path), { headers: gen.headers });
      expect(s.frames[0]).to.deep.equal({ event: 'connected', data: { socketId: s.socketId } });
      expect(s.socketId).to.match(/^[0-9a-f-]{36}$/);
      await s.close();
    });
  }

  it('gives every socket its own id and counts the sockets it holds', async () => {
    const a = await connect(wsUrl(app.url), { headers: gen.headers });
    const b = await connect(wsUrl(app.url, '/v1?x=1'), { headers: gen.headers });
    expect(a.socketId).to.not.equal(b.socketId);
    expect(app.http.realtime.connections).to.equal(2);
    await Promise.all([a.close(), b.close()]);
    await waitFor(() => app.http.realtime.connections === 0, 2000, 'sockets removed');
  });

  it('accepts a technician with its central key and its document', async () => {
    const s = await connect(wsUrl(app.url), { headers: crew.headers });
    expect(s.socketId).to.be.a('string');
    await s.close();
  });

  it('accepts an operator with a Bearer JWT or a ?token= JWT (browsers)', async () => {
    const a = await connect(wsUrl(app.url), { headers: { authorization: `Bearer ${token}` } });
    const b = await connect(wsUrl(app.url, `/v3?token=${encodeURIComponent(token)}`));
    await Promise.all([a.close(), b.close()]);
  });

  const basicCases: Array<[string, () => Record<string, string>, number, string]> = [
    ['no credentials', () => ({}), 401, AUTH_MESSAGES.basicMissing],
    ['a wrong password', () => ({ authorization: basic(gen.user.username, 'wrong') }), 401, AUTH_MESSAGES.basicInvalid],
    ['an invalid JWT', () => ({ authorization: 'Bearer not.a.token' }), 401, AUTH_MESSAGES.basicInvalid],
  ];
  for (const [what, headers, status, message] of basicCases) {
    it(`refuses ${what} with ${status} in the system envelope`, async () => {
      const r = await refusal(wsUrl(app.url), { headers: headers() });
      expect(r.status).to.equal(status);
      expect(r.body).to.include({ error: true, message });
      expect(r.body.errorId).to.match(/^err_\d+_[0-9a-f]+$/);
    });
  }

  it('refuses an inactive generator (403) and one without permission for /oferta (403)', async () => {
    const em = app.rt.orm.em.fork();
    const inactive = await makeGenerator(em, { status: 'INACTIVO' });
    const limited = await makeGenerator(em, { endpoints: ['/types'] });
    const r1 = await refusal(wsUrl(app.url), { headers: inactive.headers });
    expect(r1.status).to.equal(403);
    expect(r1.body.message).to.equal(AUTH_MESSAGES.basicInactive);
    const r2 = await refusal(wsUrl(app.url), { headers: limited.headers });
    expect(r2.status).to.equal(403);
    expect(r2.body.message).to.equal(AUTH_MESSAGES.basicForbidden);
  });

  it('refuses an invalid ?token= with 401', async () => {
    const r = await refusal(wsUrl(app.url, '/v2?token=abc'));
    expect(r.status).to.equal(401);
  });

  it('refuses technicians: unknown key 401, inactive central 401, no document 401, another central’s technician 403', async () => {
    const em = app.rt.orm.em.fork();
    const inactive = await makeCrew(em, { status: 'INACTIVO' });
    const cases: Array<[Record<string, string>, number, string]> = [
      [{ 'x-apikey': 'nope', 'x-dni-tecnico': crew.technician.dni }, 401, AUTH_MESSAGES.keyInvalid],
      [inactive.headers, 401, AUTH_MESSAGES.keyInactive],
      [{ 'x-apikey': crew.apiKey }, 401, SOCKET_AUTH_MESSAGES.dniMissing],
      [{ 'x-apikey': crew.apiKey, 'x-dni-tecnico': otherCrew.technician.dni }, 403, SOCKET_AUTH_MESSAGES.technicianUnknown],
      [{ 'x-apikey': crew.apiKey, 'x-dni-tecnico': '000' }, 403, SOCKET_AUTH_MESSAGES.technicianUnknown],
    ];
    for (const [headers, status, msg] of cases) {
      const r = await refusal(wsUrl(app.url), { headers });
      expect(r.status, msg).to.equal(status);
      expect(r.body).to.include({ status: false, msg });
      expect(r.body.timestamp).to.be.a('string');
    }
  });

  it('answers an upgrade on any other path with 404 and the route-not-found body', async () => {
    for (const path of ['/v4', '/api/v3/types', '/']) {
      const r = await refusal(wsUrl(app.url, path), { headers: gen.headers });
      expect(r.status).to.equal(404);
      expect(r.body).to.include({ error: 'Ruta no encontrada', requested_path: path });
    }
  });
});
