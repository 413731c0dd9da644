/**
 * A whole service seen only from the provider's side (D20, issue 28), with the
 * workers, the real PostgreSQL, Redis, sockets and a real HTTP receiver for the
 * central: the central issues its technician a token; the technician, on that
 * token alone, receives the offer on its socket, answers, learns it was
 * selected, receives the assignment's `servicio` (the central too, at its
 * novedad endpoint, verified with standardwebhooks), reports EN_CAMINO and
 * EN_SITIO, chats with the customer and sees the end; the central reads it all
 * back from GET /centrales/servicios. The generator and the customer act only
 * where the spec has them act.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { Offer } from '../../../src/db/entities/index.js';
import { issueTrackingToken } from '../../../src/domain/tracking/tokens.js';
import { BOGOTA, makeServiceType } from '../../helpers/factories.js';
import { startCleanApp, type TestApp } from '../../helpers/harness.js';
import { signedCall } from '../../helpers/integrity.js';
import { startReceiver, type Received, type Receiver } from '../../helpers/receiver.js';
import { connect, makeCrew, makeGenerator, wsUrl, type Crew, type Frame, type Generator, type TestSocket } from '../../helpers/sockets.js';
import { bearer, issueToken } from '../../helpers/technicians.js';
import { waitFor } from '../../helpers/wait.js';

const SECRET = 'whsec_' + Buffer.from('a-central-webhook-secret-32bytes').toString('base64');
const INTEGRITY = 'integrity-secret-of-the-tests-0123456789';
const CUSTOMER_PHONE = '3007654321';
type Body = Record<string, unknown>;

describe('a service seen only from the central’s and the technician’s side (D20)', function () {
  this.timeout(40000);
  let app: TestApp;
  let rcv: Receiver;
  let gen: Generator;
  let crew: Crew;
  let rival: Crew;
  const sockets: TestSocket[] = [];

  before(async () => {
    rcv = await startReceiver();
    app = await startCleanApp({ workers: true, env: { OFFER_RESPONSE_WINDOW_MS: '800', NOTIFICATION_BACKOFF_MS: '50', INTEGRITY_SECRET: INTEGRITY } });
    const em = app.rt.orm.em.fork();
    await makeServiceType(em);
    gen = await makeGenerator(em, { urlApi: rcv.url, apiEndpoint: { respuesta: '/respuesta' } });
    crew = await makeCrew(em);
    rival = await makeCrew(em);
    await em.execute(`update api_user set url_api = ?, api_endpoint = ?::jsonb, webhook_secret = ? where id = ?`, [
      rcv.url,
      JSON.stringify({ novedad: '/novedad' }),
      SECRET,
      crew.user.id,
    ]);
  });
  after(async () => {
    await Promise.all(sockets.map((s) => s.close()));
    await app.close();
    await rcv.close();
  });

  const open = async (headers: Record<string, string>) => {
    const s = await connect(wsUrl(app.url), { headers });
    sockets.push(s);
    return s;
  };
  const of = (uuid: string) => (f: Frame) => (f.data as { uuid?: string }).uuid === uuid;
  const novelties = (uuid: string) => rcv.calls.filter((c: Received) => c.path === '/novedad' && c.body.id === uuid);
  const verified = (call: Received) => new Webhook(SECRET).verify(call.raw, call.headers as Record<string, string>) as Body;
  const chat = (code: string, headers: Record<string, string>, json?: unknown) =>
    signedCall(app.client, INTEGRITY, { path: `api/v3/chat/${code}/messages`, json, headers, method: json === undefined ? 'GET' : 'POST' });

  it('offer → answer → selected → assigned with servicio (central and technician) → EN_CAMINO → EN_SITIO → chat → FINALIZADA, on the token alone', async () => {
    // The central gives its technician a credential of its own; the technician's app holds no key.
    const token = await issueToken(app.client, crew.apiKey, crew.technician.dni);
    const tech = await open(bearer(token));
    const other = await open(bearer(await issueToken(app.client, rival.apiKey, rival.technician.dni)));

    const uuid = randomUUID();
    const posted = await app.client.post('api/v3/oferta', {
      headers: gen.headers,
      json: { uuid, tipoServicio: '1', latitudOrigen: BOGOTA.lat, longitudOrigen: BOGOTA.lng, observaciones: 'batería descargada', telefonoCliente: CUSTOMER_PHONE },
    });
    expect(posted.statusCode).to.equal(200);

    // Both technicians receive the offer; ours answers first and faster, the rival later.
    const offered = await tech.next('offer.new', of(uuid));
    expect(offered.data).to.include({ uuid, tipoServicio: 1 });
    await other.next('offer.new', of(uuid));
    tech.send('offer.respond', { id: uuid, tiempoLlegadaSitio: 8 }, 'mine');
    other.send('offer.respond', { id: uuid, tiempoLlegadaSitio: 25 }, 'theirs');
    expect((await tech.next('offer.respond.result', (f) => f.ref === 'mine')).data).to.include({ status: 200 });
    expect((await other.next('offer.respond.result', (f) => f.ref === 'theirs')).data).to.include({ status: 200 });

    // The window closes: ours is told it won, the rival that it did not.
    expect((await tech.next('offer.selected', of(uuid), 10000)).data).to.deep.include({ uuid, estado: 'ACEPTADA' });
    expect((await other.next('offer.closed', of(uuid))).data).to.deep.equal({ uuid, result: 'selected' });

    // The generator confirms (spec 4.8): the central and its technician receive the servicio.
    await waitFor(() => rcv.calls.some((c) => c.path === '/respuesta' && c.body.id === uuid) || null, 8000, 'the 6.1');
    const assigned = await app.client.post('api/v3/asignacion', { headers: gen.headers, json: { uuid } });
    expect(assigned.statusCode).to.equal(200);
    const codigoServicio = (assigned.body as unknown as { codigoServicio: string }).codigoServicio;
    const service = (await tech.next('service.assigned', of(uuid))).data as { codigoServicio: string; servicio: Body };
    expect(service.codigoServicio).to.equal(codigoServicio);
    expect(service.servicio).to.deep.include({ uuid, codigoServicio, observaciones: 'batería descargada', tecnico: { dniTecnico: crew.technician.dni, nombre: crew.technician.names } });
    const [novelty] = await waitFor(() => (novelties(uuid).length ? novelties(uuid) : null), 8000, 'the central’s ASIGNADA novelty');
    const body = verified(novelty);
    expect(body).to.deep.include({ id: uuid, estado: 'ASIGNADA', codigoServicio });
    expect((body.servicio as Body).tecnico).to.deep.equal({ dniTecnico: crew.technician.dni, nombre: crew.technician.names });
    expect(novelty.raw + JSON.stringify(service)).to.not.include(CUSTOMER_PHONE);

    // The technician reports its progress with its token: over the socket, then over HTTP.
    tech.send('progress', { id: uuid, estado: 'EN_CAMINO' }, 'road');
    expect((await tech.next('progress.result', (f) => f.ref === 'road')).data).to.include({ status: 200 });
    const onSite = await app.client.put('api/v3/estado-servicio', { headers: bearer(token), json: { id: uuid, estado: 'EN_SITIO' } });
    expect(onSite.statusCode).to.equal(200);
    await tech.next('offer.state', (f) => of(uuid)(f) && (f.data as { estado: string }).estado === 'EN_SITIO');

    // The customer writes; the technician reads and answers with its token (D14).
    const offer = await app.rt.orm.em.fork().findOneOrFail(Offer, { uuid });
    const customer = bearer((await issueTrackingToken(app.rt.orm.em.fork(), offer)).token);
    expect((await chat(codigoServicio, customer, { texto: '¿Cuánto falta?', clientId: 'c-1' })).statusCode).to.equal(200);
    const read = (await chat(codigoServicio, bearer(token))).body as unknown as { data: { messages: Array<{ autor: string; texto: string }> } };
    expect(read.data.messages.map((m) => [m.autor, m.texto])).to.deep.include(['cliente', '¿Cuánto falta?']);
    expect((await chat(codigoServicio, bearer(token), { texto: 'Ya estoy en el sitio', clientId: 't-1' })).statusCode).to.equal(200);
    // The rival's technician, on its own token, cannot read that chat.
    expect((await chat(codigoServicio, bearer(await issueToken(app.client, rival.apiKey, rival.technician.dni)))).statusCode).to.equal(404);

    // The generator finishes (spec 4.4); the technician sees the end, the central reads the whole service back.
    expect((await app.client.post('api/v3/finalize', { headers: gen.headers, json: { uuid } })).statusCode).to.equal(200);
    await tech.next('offer.state', (f) => of(uuid)(f) && (f.data as { estado: string }).estado === 'FINALIZADA');
    const listed = await app.client.get('api/v3/centrales/servicios', { headers: { 'x-apikey': crew.apiKey } });
    expect(listed.statusCode).to.equal(200);
    const mine = ((listed.body as unknown as { data: { servicios: Array<Body & { timeline: Array<{ estado: string }> }> } }).data.servicios).find((s) => s.uuid === uuid);
    expect(mine).to.deep.include({ estado: 'FINALIZADA', codigoServicio });
    expect(mine!.timeline.map((t) => t.estado)).to.include.members(['ACEPTADA', 'ASIGNADA', 'EN_CAMINO', 'EN_SITIO', 'FINALIZADA']);
    // And the rival's technician heard nothing more of that offer after it lost.
    const after = other.frames.filter(of(uuid)).map((f) => f.event);
    expect(after.slice(after.indexOf('offer.closed') + 1)).to.deep.equal([]);
  });
});
