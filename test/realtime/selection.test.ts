/**
 * Told they won, or not (D20), with the workers, the real PostgreSQL, Redis
 * and sockets: the chosen technician gets `offer.selected`, the others
 * `offer.closed` and nothing more of that offer; at ASIGNADA the winning
 * central's `novedad` endpoint gets the service with its `servicio` (PUT,
 * signed (D17), in order, in the delivery log) and its technician
 * `service.assigned`; the direct-assignment push carries the same `servicio`.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { WebhookDelivery } from '../../src/db/entities/index.js';
import { BOGOTA, makeServiceType } from '../helpers/factories.js';
import { startCleanApp, type TestApp } from '../helpers/harness.js';
import { checkComponent } from '../helpers/openapi.js';
import { startReceiver, type Received, type Receiver } from '../helpers/receiver.js';
import { connect, makeCrew, makeGenerator, wsUrl, type Crew, type Frame, type Generator, type TestSocket } from '../helpers/sockets.js';
import { waitFor } from '../helpers/wait.js';

const SECRET = 'whsec_' + Buffer.from('a-central-webhook-secret-32bytes').toString('base64');
const CUSTOMER_PHONE = '3001234567';

describe('real time: told they won, or not (D20)', function () {
  this.timeout(30000);
  let app: TestApp;
  let rcv: Receiver;
  let gen: Generator;
  let winner: Crew;
  let loser: Crew;
  const sockets: TestSocket[] = [];

  before(async () => {
    rcv = await startReceiver();
    app = await startCleanApp({ workers: true, env: { OFFER_RESPONSE_WINDOW_MS: '800', NOTIFICATION_BACKOFF_MS: '50' } });
    const em = app.rt.orm.em.fork();
    await makeServiceType(em);
    gen = await makeGenerator(em, { urlApi: rcv.url, apiEndpoint: { respuesta: '/respuesta' } });
    winner = await makeCrew(em);
    loser = await makeCrew(em);
    // the winning central's profile: its novelties at rcv/novedad, its pushes at rcv/oferta, signed (D17)
    await em.execute(`update api_user set url_api = ?, api_endpoint = ?::jsonb, webhook_secret = ? where id = ?`, [
      rcv.url,
      JSON.stringify({ novedad: '/novedad', oferta: '/oferta' }),
      SECRET,
      winner.user.id,
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
  const calls = (uuid: string, path: string) => rcv.calls.filter((c) => c.path === path && (c.body.id ?? c.body.uuid) === uuid);
  const verified = (call: Received) => new Webhook(SECRET).verify(call.raw, call.headers as Record<string, string>) as Record<string, unknown>;

  it('two technicians answer: the winner gets offer.selected and follows the service; the loser offer.closed and nothing more; at ASIGNADA the central’s novedad and the technician’s service.assigned carry the servicio', async () => {
    const [a, b, genSocket] = await Promise.all([open(winner.headers), open(loser.headers), open(gen.headers)]);
    const uuid = randomUUID();
    const posted = await app.client.post('api/v3/oferta', {
      headers: gen.headers,
      json: {
        uuid,
        tipoServicio: '1',
        latitudOrigen: BOGOTA.lat,
        longitudOrigen: BOGOTA.lng,
        fechaCita: '2030-01-15',
        horaCita: '10:30',
        puntoReferenciaOrigen: 'frente al parque',
        observaciones: 'llanta pinchada',
        telefonoCliente: CUSTOMER_PHONE,
      },
    });
    expect(posted.statusCode).to.equal(200);
    await Promise.all([a.next('offer.new', of(uuid)), b.next('offer.new', of(uuid))]);
    a.send('offer.respond', { id: uuid, tiempoLlegadaSitio: 5 }, 'a');
    b.send('offer.respond', { id: uuid, tiempoLlegadaSitio: 20 }, 'b');
    expect((await a.next('offer.respond.result', (f) => f.ref === 'a')).data).to.include({ status: 200 });
    expect((await b.next('offer.respond.result', (f) => f.ref === 'b')).data).to.include({ status: 200 });

    // the selection (ACEPTADA at the deadline)
    const selected = await a.next('offer.selected', of(uuid), 10000);
    expect(selected.data).to.deep.include({ uuid, estado: 'ACEPTADA' });
    expect((selected.data as { accepted: { time: number; tech_names: string } }).accepted).to.include({ time: 5, tech_names: winner.technician.names });
    expect((await b.next('offer.closed', of(uuid))).data).to.deep.equal({ uuid, result: 'selected' });
    // the generator's events are unchanged: the selection and the end of the window
    await genSocket.next('offer.closed', of(uuid));
    expect(genSocket.frames.filter(of(uuid)).map((f) => f.event)).to.not.include('offer.selected');
    await waitFor(() => calls(uuid, '/respuesta').length === 1 || null, 5000, 'the acceptance notification');

    // ASIGNADA: the generator confirms
    const assigned = await app.client.post('api/v3/asignacion', { headers: gen.headers, json: { uuid } });
    expect(assigned.statusCode).to.equal(200);
    const codigoServicio = (assigned.body as unknown as { codigoServicio: string }).codigoServicio;
    // the winner still follows its offer: the generator's ASIGNADA reaches it, and then its service
    await a.next('offer.state', (f) => of(uuid)(f) && (f.data as { estado: string }).estado === 'ASIGNADA');
    const service = await a.next('service.assigned', of(uuid));
    const servicio = (service.data as { servicio: Record<string, unknown> }).servicio;
    expect(service.data).to.deep.include({ uuid, codigoServicio, estado: 'ASIGNADA' });
    expect(servicio).to.deep.include({
      uuid,
      codigoServicio,
      tipoServicio: 1,
      nombreTipoServicio: 'GRUA',
      fechaCita: '2030-01-15',
      horaCita: '10:30',
      puntoReferenciaOrigen: 'frente al parque',
      observaciones: 'llanta pinchada',
      guardian: 'NO',
      paradas: [],
      tecnico: { dniTecnico: winner.technician.dni, nombre: winner.technician.names },
    });
    expect(JSON.stringify(service.data)).to.not.contain(CUSTOMER_PHONE);
    checkComponent('Servicio', servicio);

    // the loser: offer.closed was its last frame of that offer (the ASIGNADA that reached the winner above did not reach it)
    const mine = b.frames.filter(of(uuid)).map((f) => [f.event, (f.data as { estado?: string }).estado ?? null]);
    expect(mine).to.deep.equal([
      ['offer.new', null],
      ['offer.state', 'ACEPTADA'],
      ['offer.closed', null],
    ]);
    expect(b.events('service.assigned')).to.deep.equal([]);
    expect(b.events('offer.selected')).to.deep.equal([]);
    // the winner never got offer.closed
    expect(a.frames.filter(of(uuid)).map((f) => f.event)).to.not.include('offer.closed');

    // the central's novelty (D12/D17/D20), then its cancellation's: in order, signed, in the delivery log
    const cancelled = await app.client.post('api/v3/cancelacion', { headers: gen.headers, json: { uuid, motivo: 'prueba' } });
    expect(cancelled.statusCode).to.equal(200);
    const novelties = await waitFor(() => (calls(uuid, '/novedad').length === 2 ? calls(uuid, '/novedad') : null), 8000, 'two novelties');
    expect(novelties.map((c) => [c.method, c.body.estado])).to.deep.equal([
      ['PUT', 'ASIGNADA'],
      ['PUT', 'CANCELADA'],
    ]);
    const body = verified(novelties[0]);
    expect(body).to.have.all.keys('id', 'estado', 'fecha', 'detalle', 'codigoServicio', 'servicio');
    checkComponent('AssignedNovelty', body);
    expect(body).to.deep.include({ id: uuid, estado: 'ASIGNADA', detalle: 'EL SERVICIO FUE ASIGNADO A SU CENTRAL', codigoServicio });
    expect(body.servicio).to.deep.equal(servicio);
    expect(novelties[0].raw).to.not.contain(CUSTOMER_PHONE);
    expect(novelties[0].headers['webhook-id']).to.equal(novelties[0].headers['x-event-id']);
    // the loser's central has no endpoint: nothing was planned for it; the winner's novelty is in the log
    const logged = await waitFor(async () => {
      const rows = await app.rt.orm.em.fork().find(WebhookDelivery, { offer: uuid, kind: 'novedad' }, { orderBy: { createdAt: 'asc' } });
      return rows.every((d) => d.state === 'ok') ? rows : null;
    }, 5000, 'the novelties recorded');
    expect(logged.map((d) => [d.state, (d.requestBody as { estado: string }).estado])).to.deep.equal([
      ['ok', 'ASIGNADA'],
      ['ok', 'CANCELADA'],
    ]);
  });

  it('a direct assignment: the push to the central carries the servicio, the central’s novedad too, and the named technician gets service.assigned', async () => {
    const a = await open(winner.headers);
    const uuid = randomUUID();
    const res = await app.client.post('api/v3/asignacion-directa', {
      headers: gen.headers,
      json: {
        uuid,
        tipoServicio: '1',
        latitudOrigen: BOGOTA.lat,
        longitudOrigen: BOGOTA.lng,
        fechaCita: '',
        dniPrestador: winner.central.nit,
        dniTecnico: winner.technician.dni,
        telefonoCliente: CUSTOMER_PHONE,
      },
    });
    expect(res.statusCode).to.equal(200);
    const { codigoServicio } = res.body as unknown as { codigoServicio: string };
    const service = await a.next('service.assigned', of(uuid));
    const servicio = (service.data as { servicio: Record<string, unknown> }).servicio;
    expect(servicio).to.deep.include({ uuid, codigoServicio, fechaCita: '', horaCita: '', tecnico: { dniTecnico: winner.technician.dni, nombre: winner.technician.names } });

    const push = await waitFor(() => calls(uuid, '/oferta')[0], 8000, 'the push');
    const pushed = verified(push);
    expect(pushed).to.deep.include({ asignacionDirecta: true, codigoServicio, dniTecnico: winner.technician.dni });
    expect(pushed.servicio).to.deep.equal(servicio);
    checkComponent('OfferPush', pushed);
    expect(push.raw).to.not.contain(CUSTOMER_PHONE);
    const novelty = await waitFor(() => calls(uuid, '/novedad')[0], 8000, 'the novelty');
    expect(verified(novelty)).to.deep.include({ id: uuid, estado: 'ASIGNADA', codigoServicio, servicio });
    expect(novelty.raw).to.not.contain(CUSTOMER_PHONE);
  });

  it('an own-central acceptance assigns at once: its technician gets offer.selected (ASIGNADA) and service.assigned, the others offer.closed and nothing more', async () => {
    const em = app.rt.orm.em.fork();
    const own = await makeCrew(em);
    const ownGen = await makeGenerator(em, { nit: own.central.nit, urlApi: rcv.url, apiEndpoint: { respuesta: '/respuesta' } });
    const [o, b] = await Promise.all([open(own.headers), open(loser.headers)]);
    const uuid = randomUUID();
    const posted = await app.client.post('api/v3/oferta', { headers: ownGen.headers, json: { uuid, tipoServicio: '1', latitudOrigen: BOGOTA.lat, longitudOrigen: BOGOTA.lng, fechaCita: '' } });
    expect(posted.statusCode).to.equal(200);
    await Promise.all([o.next('offer.new', of(uuid)), b.next('offer.new', of(uuid))]);
    o.send('offer.respond', { id: uuid, tiempoLlegadaSitio: 7 }, 'own');
    expect((await o.next('offer.respond.result', (f) => f.ref === 'own')).data).to.include({ status: 200 });
    expect((await o.next('offer.selected', of(uuid))).data).to.deep.include({ uuid, estado: 'ASIGNADA' });
    const service = await o.next('service.assigned', of(uuid));
    expect((service.data as { servicio: { tecnico: unknown } }).servicio.tecnico).to.deep.equal({ dniTecnico: own.technician.dni, nombre: own.technician.names });
    expect((await b.next('offer.closed', of(uuid))).data).to.deep.equal({ uuid, result: 'assigned-own' });
    // a later state of the offer reaches its technician, never the one left out
    expect((await app.client.post('api/v3/cancelacion', { headers: ownGen.headers, json: { uuid } })).statusCode).to.equal(200);
    await o.next('offer.state', (f) => of(uuid)(f) && (f.data as { estado: string }).estado === 'CANCELADA');
    expect(b.frames.filter(of(uuid)).map((f) => f.event)).to.deep.equal(['offer.new', 'offer.state', 'offer.closed']);
  });

  it('a late acceptance the generator confirms: its technician gets offer.selected; the others that received the offer offer.closed and nothing more', async () => {
    const em = app.rt.orm.em.fork();
    const late = await makeCrew(em);
    const [l, b] = await Promise.all([open(late.headers), open(loser.headers)]);
    const uuid = randomUUID();
    const posted = await app.client.post('api/v3/oferta', { headers: gen.headers, json: { uuid, tipoServicio: '1', latitudOrigen: BOGOTA.lat, longitudOrigen: BOGOTA.lng, fechaCita: '' } });
    expect(posted.statusCode).to.equal(200);
    await Promise.all([l.next('offer.new', of(uuid)), b.next('offer.new', of(uuid))]);
    // nobody answers in the window
    await b.next('offer.closed', (f) => of(uuid)(f) && (f.data as { result: string }).result === 'no-response', 10000);
    l.send('offer.respond', { id: uuid, tiempoLlegadaSitio: 12 }, 'late');
    expect((await l.next('offer.respond.result', (f) => f.ref === 'late', 10000)).data).to.include({ status: 200 });
    expect((await l.next('offer.selected', of(uuid))).data).to.deep.include({ uuid, estado: 'ACEPTADA' });
    expect((await b.next('offer.closed', (f) => of(uuid)(f) && (f.data as { result: string }).result === 'selected')).data).to.deep.equal({ uuid, result: 'selected' });
    expect((await app.client.post('api/v3/asignacion', { headers: gen.headers, json: { uuid } })).statusCode).to.equal(200);
    await l.next('service.assigned', of(uuid));
    await l.next('offer.state', (f) => of(uuid)(f) && (f.data as { estado: string }).estado === 'ASIGNADA');
    const seen = b.frames.filter(of(uuid)).map((f) => [f.event, (f.data as { estado?: string; result?: string }).estado ?? (f.data as { result?: string }).result ?? null]);
    expect(seen).to.deep.equal([
      ['offer.new', null],
      ['offer.state', 'SIN_RESPUESTA'],
      ['offer.closed', 'no-response'],
      ['offer.state', 'ACEPTADA'],
      ['offer.closed', 'selected'],
    ]);
  });
});
