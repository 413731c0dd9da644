/**
 * The operator console's data and rules without a browser (issue 31, D23):
 * GET /api/v3/admin/mapa (operators only, what the map draws), the socket
 * token and the operator socket's `technician.position` and `offer.states`,
 * the work queue's reasons, the login's `next` (a path of this site only) and
 * the logout, and a resend that waits for its confirmation (and for the 6.1,
 * for the admin's "I understand").
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { signOperatorToken } from '../../src/auth/jwt.js';
import { stuckReasons, WINDOW_LATE_MS } from '../../src/domain/console/workQueue.js';
import type { WorkQueueRow } from '../../src/db/stores/offers.js';
import { safeNext } from '../../src/http/routes/adminLogin.js';
import { DELIVERY_MESSAGES } from '../../src/api/deliveries/console.js';
import { makeOperator, makeTechnician } from '../helpers/factories.js';
import type { TestApp } from '../helpers/harness.js';
import { bodyOf, offerIn, startOps, type Generator, type Provider } from '../helpers/ops.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { connect, wsUrl } from '../helpers/sockets.js';

describe('the operator console’s data and rules (issue 31, D23)', function () {
  this.timeout(30000);
  let app: TestApp;
  let gen: Generator;
  let prov: Provider;
  let rcv: Receiver;
  let jwt: string;
  let adminJwt: string;
  const em = () => app.rt.orm.em.fork();

  before(async () => {
    rcv = await startReceiver();
    ({ app, gen, prov } = await startOps());
    jwt = await signOperatorToken((await makeOperator(em())).operator, app.rt.config.jwtSecret, '1h');
    adminJwt = await signOperatorToken((await makeOperator(em(), { role: 'admin' })).operator, app.rt.config.jwtSecret, '1h');
  });
  after(async () => {
    await app.close();
    await rcv.close();
  });

  const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

  it('GET /admin/mapa: technicians free, busy and off with their position, open offers with their deadline, services on the way', async () => {
    const off = await makeTechnician(em(), prov.central, { names: 'Sin Turno', available: false, position: { lat: 4.62, lng: -74.15 } });
    const stale = await makeTechnician(em(), prov.central, { names: 'Ayer' });
    await em().execute(`update technician set position_at = now() - interval '13 hours' where id = ?`, [stale.id]);
    const open = await offerIn(em(), gen, 'ABIERTA', undefined, { originLat: 4.68, originLng: -74.05, direccionOrigen: 'Carrera 15 # 93-60' });
    const onWay = await offerIn(em(), gen, 'EN_CAMINO', prov, { codigoServicio: 'SV-MAPA9', originLat: 4.66, originLng: -74.06 });
    await offerIn(em(), gen, 'FINALIZADA', prov);
    await em().execute(`update technician set busy_offer_uuid = ? where id = ?`, [onWay.uuid, prov.technician.id]);

    expect((await app.client.get('api/v3/admin/mapa')).statusCode, 'operators only').to.equal(401);
    const res = await app.client.get('api/v3/admin/mapa', { headers: bearer(jwt) });
    expect(res.statusCode).to.equal(200);
    const data = (bodyOf(res) as { data: { tecnicos: Array<Record<string, unknown>>; ofertas: Array<Record<string, unknown>>; servicios: Array<Record<string, unknown>> } }).data;
    const byId = new Map(data.tecnicos.map((t) => [t.id, t]));
    expect(byId.get(prov.technician.id)).to.include({ estado: 'ocupado', central: prov.central.name });
    expect(byId.get(off.id)).to.include({ estado: 'no-disponible', latitud: 4.62, longitud: -74.15 });
    expect(byId.has(stale.id), 'a position older than 12 hours is not drawn').to.equal(false);
    expect(data.ofertas.map((o) => o.uuid)).to.deep.equal([open.uuid]);
    expect(data.ofertas[0]).to.include({ direccion: 'Carrera 15 # 93-60', latitud: 4.68, longitud: -74.05, tipo: 'GRUA' });
    expect(Date.parse(String(data.ofertas[0].cierre))).to.be.above(Date.now());
    expect(data.servicios).to.have.length(1);
    expect(data.servicios[0]).to.deep.include({ uuid: onWay.uuid, codigoServicio: 'SV-MAPA9', estado: 'EN_CAMINO', tecnicoId: prov.technician.id, destino: { latitud: 4.66, longitud: -74.06, direccion: null } });
    expect(data.servicios[0].tecnicoPosicion).to.include({ latitud: prov.technician.lat, longitud: prov.technician.lng });
  });

  it('the socket token opens the operator socket, which hears position reports and state changes', async () => {
    expect((await app.client.get('api/v3/admin/socket-token')).statusCode).to.equal(401);
    const res = await app.client.get('api/v3/admin/socket-token', { headers: bearer(jwt) });
    expect(res.statusCode).to.equal(200);
    const { token, expiresInS } = (bodyOf(res) as { data: { token: string; expiresInS: number } }).data;
    expect(expiresInS).to.equal(60);
    const ws = await connect(`${wsUrl(app.url)}?token=${encodeURIComponent(token)}`);
    try {
      const moved = await app.client.put('api/v3/posicion-tecnico', { headers: { 'x-apikey': prov.apiKey }, json: { dniTecnico: prov.technician.dni, latitud: 4.7, longitud: -74.04, disponible: true } });
      expect(moved.statusCode).to.equal(200);
      const pos = await ws.next('technician.position', (f) => (f.data as { tecnicoId: number }).tecnicoId === prov.technician.id);
      expect(pos.data).to.include({ latitud: 4.7, longitud: -74.04 });
      expect((pos.data as { estado: string }).estado).to.be.oneOf(['libre', 'ocupado']);
      const offer = await offerIn(em(), gen, 'ASIGNADA', prov);
      const started = await app.client.put('api/v3/estado-servicio', { headers: { 'x-apikey': prov.apiKey }, json: { id: offer.uuid, estado: 'EN_CAMINO', dniTecnico: prov.technician.dni } });
      expect(started.statusCode, JSON.stringify(started.body)).to.equal(200);
      const states = await ws.next('offer.states', (f) => (f.data as { cambios: Array<{ uuid: string }> }).cambios.some((c) => c.uuid === offer.uuid));
      expect((states.data as { cambios: unknown[] }).cambios).to.deep.include({ uuid: offer.uuid, estado: 'EN_CAMINO', anterior: 'ASIGNADA' });
    } finally {
      await ws.close();
    }
  });

  it('the work queue says why a service is stuck: a late window, failed notices, no progress, an SMS that never left', () => {
    const now = new Date('2026-11-28T10:00:00Z');
    const row = (o: Partial<WorkQueueRow>): WorkQueueRow => ({
      uuid: randomUUID(), state: 'EN_CAMINO', codigoServicio: null, tipo: 'GRUA', direccion: null, ciudad: null, createdAt: now.toISOString(),
      deadlineAt: null, lastChangeAt: now.toISOString(), generador: 'g', central: null, technicianId: null, tecnico: null, tecnicoIdentificador: null, techLat: null,
      techLng: null, techPositionAt: null, chatMessages: 0, chatLastAt: null, smsSent: 0, smsFailed: 0, surveyRating: null, failedDeliveries: 0, ...o,
    });
    expect(stuckReasons(row({}), now)).to.deep.equal([]);
    expect(stuckReasons(row({ state: 'ABIERTA', deadlineAt: new Date(now.getTime() - WINDOW_LATE_MS - 1000).toISOString() }), now)).to.deep.equal(['ventana-atrasada']);
    expect(stuckReasons(row({ state: 'ABIERTA', deadlineAt: new Date(now.getTime() - 1000).toISOString() }), now), 'the evaluation has a moment').to.deep.equal([]);
    expect(stuckReasons(row({ state: 'ASIGNADA', lastChangeAt: new Date(now.getTime() - 31 * 60_000).toISOString() }), now)).to.deep.equal(['sin-avance']);
    expect(stuckReasons(row({ state: 'EN_CAMINO', lastChangeAt: new Date(now.getTime() - 31 * 60_000).toISOString() }), now)).to.deep.equal([]);
    expect(stuckReasons(row({ state: 'FINALIZADA', failedDeliveries: 2, smsFailed: 1 }), now)).to.deep.equal(['entregas-fallidas', 'sms-fallido']);
  });

  it('the login goes back only to a path of this site under /admin/', async () => {
    expect(safeNext('/admin/console/ofertas/SV-1?reenvio=ok')).to.equal('/admin/console/ofertas/SV-1?reenvio=ok');
    expect(safeNext('/admin/queues')).to.equal('/admin/queues');
    for (const bad of ['//evil.example/admin/', 'https://evil.example/admin/', '/\\evil.example', '/admin/\\\\evil', '/admin/../seguimiento', '/seguimiento', '/admin/login?next=/x', 'javascript:alert(1)', '/admin/\nx', '', 7, null]) {
      expect(safeNext(bad), String(bad)).to.equal(null);
    }
    const { operator, password } = await makeOperator(em());
    const evil = await app.client.post('admin/login', { form: { username: operator.username, password, next: '//evil.example/admin/' }, responseType: 'text' });
    expect([evil.statusCode, evil.headers.location]).to.deep.equal([303, '/admin/console']);
    const deep = await app.client.post('admin/login', { form: { username: operator.username, password, next: '/admin/console/ofertas/SV-1' }, responseType: 'text' });
    expect([deep.statusCode, deep.headers.location]).to.deep.equal([303, '/admin/console/ofertas/SV-1']);
    const form = await app.client.get('admin/login?next=%2Fadmin%2Fconsole%3Fq%3D%22%3E%3Cscript%3E', { responseType: 'text' });
    expect(form.body).to.include('name="next" value="/admin/console?q=%22%3E%3Cscript%3E"').and.not.include('"><script>');
  });

  it('logout forgets the cookie, and only from this site', async () => {
    const cross = await app.client.post('admin/logout', { headers: { cookie: `operator_token=${jwt}`, origin: 'https://evil.example' }, responseType: 'text' });
    expect(cross.statusCode).to.equal(403);
    const out = await app.client.post('admin/logout', { headers: { cookie: `operator_token=${jwt}` }, responseType: 'text' });
    expect([out.statusCode, out.headers.location]).to.deep.equal([303, '/admin/login?salio=1']);
    expect(out.headers['set-cookie']?.join(';')).to.match(/operator_token=;/);
  });

  it('a resend waits for the confirmation; the 6.1 also for the admin’s "I understand"', async () => {
    const offer = await offerIn(em(), gen, 'INACTIVA', prov);
    const insert = async (kind: string) => {
      const id = randomUUID();
      await em().execute(
        `insert into webhook_delivery (id, offer_uuid, kind, event_id, url, method, request_headers, request_body, state, attempts, status_code, created_at, completed_at)
         values (?, ?, ?, ?, ?, 'PUT', '{}', '{}', 'failed', 1, 500, now(), now())`,
        [id, offer.uuid, kind, `evt-${randomUUID()}`, `${rcv.url}/${kind}`],
      );
      return id;
    };
    const post = (id: string, form: Record<string, string>, token = adminJwt) =>
      app.client.post(`admin/console/entregas/${id}/reenviar`, { headers: { cookie: `operator_token=${token}` }, form, responseType: 'text' });
    const state = await insert('state');
    const asked = await post(state, {});
    expect(asked.statusCode).to.equal(200);
    expect(asked.body).to.include('Confirmar el reenvío').and.include('name="confirmado" value="si"').and.not.include('name="entiendo"');
    expect(rcv.calls, 'nothing sent before the confirmation').to.have.length(0);
    expect((await post(state, {}, jwt)).statusCode, 'an operator is refused before any question').to.equal(403);
    const sent = await post(state, { confirmado: 'si' });
    expect([sent.statusCode, sent.headers.location]).to.deep.equal([303, `/admin/console/ofertas/${offer.uuid}?reenvio=ok`]);
    expect(rcv.calls).to.have.length(1);

    const acceptance = await insert('acceptance');
    const page = await post(acceptance, {});
    expect(page.body).to.include('se envía una sola vez').and.include('name="entiendo" value="si" required');
    const refused = await post(acceptance, { confirmado: 'si' });
    expect(refused.statusCode).to.equal(400);
    expect(refused.body).to.include(DELIVERY_MESSAGES.understand);
    expect(rcv.calls, 'the 6.1 is not resent without "I understand"').to.have.length(1);
    const resent = await post(acceptance, { confirmado: 'si', entiendo: 'si' });
    expect(resent.statusCode).to.equal(303);
    expect(rcv.calls).to.have.length(2);
  });

  it('serves the work queue alone for the live refresh, to operators only', async () => {
    const offer = await offerIn(em(), gen, 'EN_SITIO', prov, { codigoServicio: 'SV-COLA1' });
    const part = await app.client.get('admin/console/cola', { headers: { cookie: `operator_token=${jwt}`, accept: 'text/html' }, responseType: 'text' });
    expect(part.statusCode).to.equal(200);
    expect(part.headers['content-type']).to.match(/^text\/html/);
    expect(part.body).to.match(/^<section id="cola"/).and.include(`id="cola-${offer.uuid}"`).and.include('En el sitio');
    const anonymous = await app.client.get('admin/console/cola', { headers: { accept: 'text/html' }, responseType: 'text' });
    expect([anonymous.statusCode, anonymous.headers.location]).to.deep.equal([302, '/admin/login?next=%2Fadmin%2Fconsole%2Fcola']);
  });

  it('serves the console’s modules and script, nothing else under /assets/', async () => {
    for (const path of ['assets/map.js', 'assets/console-map.js', 'admin/console/app.js']) {
      const res = await app.client.get(path, { responseType: 'text' });
      expect(res.statusCode, path).to.equal(200);
      expect(res.headers['content-type'], path).to.match(/^application\/javascript/);
    }
    const cm = await app.client.get('assets/console-map.js', { responseType: 'text' });
    expect(cm.body).to.include("from './map.js'").and.not.include('domain/console');
    expect((await app.client.get('assets/consoleMap.js', { responseType: 'text' })).statusCode).to.equal(404);
    expect((await app.client.get('assets/..%2Fconsole.js', { responseType: 'text' })).statusCode).to.equal(404);
  });
});
