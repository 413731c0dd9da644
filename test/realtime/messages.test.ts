import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { ApiUser, Offer, OfferResponse, Technician } from '../../src/db/entities/index.js';
import { MESSAGES, controllerError } from '../../src/envelopes.js';
import { AUTH_MESSAGES } from '../../src/http/auth/index.js';
import type { ActionResult, TechnicianActions } from '../../src/realtime/actions.js';
import { MAX_INFLIGHT_PER_SOCKET } from '../../src/realtime/actions.js';
import { PROTOCOL_MESSAGES } from '../../src/realtime/protocol.js';
import { resetDb } from '../helpers/db.js';
import { makeApiUser, makeOffer, makeServiceType } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { distributeTo } from '../helpers/offers.js';
import { connect, makeCrew, makeGenerator, wsUrl, type Crew, type Generator, type TestSocket } from '../helpers/sockets.js';

interface Call {
  action: keyof TechnicianActions;
  callerId: number;
  input: unknown;
  offersCounted: number;
}

describe('real time: messages technicians send', () => {
  let app: TestApp;
  let crew: Crew;
  let gen: Generator;
  let tech: TestSocket;
  const calls: Call[] = [];
  let gate: Promise<void> | null = null;

  const ok = (msg: string): ActionResult => ({ status: 200, body: { status: true, data: msg } });
  // Each fake reads through a fork of its own, as the real actions do: a message runs in no ORM context.
  const actions: TechnicianActions = {
    respond: async (rt, caller, input) => {
      if (gate) await gate;
      calls.push({ action: 'respond', callerId: caller.id, input, offersCounted: await rt.orm.em.fork().count(Offer) });
      return ok('RESPUESTA ACEPTADA, ESPERA POR FAVOR A QUE SE CONFIRME LA ASIGNACIÓN DEL SERVICIO');
    },
    position: async (rt, caller, input) => {
      calls.push({ action: 'position', callerId: caller.id, input, offersCounted: await rt.orm.em.fork().count(Offer) });
      return { status: 200, body: { status: true, msg: 'POSICIÓN ACTUALIZADA' } };
    },
    progress: async (_rt, caller, input) => {
      calls.push({ action: 'progress', callerId: caller.id, input, offersCounted: 0 });
      if (input.estado === 'FINALIZADA') throw controllerError(403, 'LA OPERACIÓN NO ES PERMITIDA');
      if (input.estado === 'ROTO') throw new Error('boom');
      return ok('ESTADO ACTUALIZADO');
    },
  };

  before(async () => {
    app = await startApp({ http: { realtime: { actions } } });
    await resetDb(app.rt.orm);
    const em = app.rt.orm.em.fork();
    await makeServiceType(em);
    crew = await makeCrew(em);
    gen = await makeGenerator(em);
    tech = await connect(wsUrl(app.url), { headers: crew.headers });
  });
  after(async () => app.close());
  beforeEach(() => {
    calls.length = 0;
  });

  it('offer.respond calls the acceptance with the central and technician of the identity, and answers its status and body', async () => {
    const id = randomUUID();
    tech.send('offer.respond', { id, tiempoLlegadaSitio: 12, latitudTecnico: 4.6512, longitudTecnico: '-74.0801' }, 'r-1');
    const res = await tech.next('offer.respond.result', (f) => f.ref === 'r-1');
    expect(res.data).to.deep.equal(ok('RESPUESTA ACEPTADA, ESPERA POR FAVOR A QUE SE CONFIRME LA ASIGNACIÓN DEL SERVICIO'));
    expect(calls).to.have.length(1);
    expect(calls[0]).to.deep.include({ action: 'respond', callerId: crew.user.id, offersCounted: 0 });
    expect(calls[0].input).to.deep.equal({
      id,
      dniPrestador: crew.central.nit,
      dniTecnico: crew.technician.dni,
      tiempoLlegadaSitio: 12,
      latitudTecnico: '4.6512',
      longitudTecnico: '-74.0801',
    });
  });

  it('position and progress reach their functions with the technician’s document', async () => {
    const id = randomUUID();
    tech.send('position', { latitud: 4.7, longitud: -74.05, disponible: false }, 'pos');
    tech.send('progress', { id, estado: 'EN_CAMINO' }, 'prog');
    expect((await tech.next('position.result', (f) => f.ref === 'pos')).data).to.deep.equal({ status: 200, body: { status: true, msg: 'POSICIÓN ACTUALIZADA' } });
    expect((await tech.next('progress.result', (f) => f.ref === 'prog')).data).to.deep.equal(ok('ESTADO ACTUALIZADO'));
    const byAction = Object.fromEntries(calls.map((c) => [c.action, c.input]));
    expect(byAction.position).to.deep.equal({ dniTecnico: crew.technician.dni, latitud: 4.7, longitud: -74.05, disponible: false });
    expect(byAction.progress).to.deep.include({ id, estado: 'EN_CAMINO', dniTecnico: crew.technician.dni });
  });

  it('a refused action answers the HTTP status and envelope; a failure answers 500 without closing the socket', async () => {
    tech.send('progress', { id: randomUUID(), estado: 'FINALIZADA' }, 'refused');
    tech.send('progress', { id: randomUUID(), estado: 'ROTO' }, 'broken');
    const refused = await tech.next('progress.result', (f) => f.ref === 'refused');
    expect(refused.data).to.deep.equal({ status: 403, body: { status: false, msg: 'LA OPERACIÓN NO ES PERMITIDA' } });
    const broken = await tech.next('progress.result', (f) => f.ref === 'broken');
    const data = broken.data as { status: number; body: Record<string, unknown> };
    expect(data.status).to.equal(500);
    expect(data.body).to.include({ error: true, message: MESSAGES.internal });
    expect(app.logs.some((l) => l.msg === 'socket action failed' && l.errorId === data.body.errorId)).to.equal(true);
    tech.send('ping', undefined, 'still-there');
    await tech.next('pong', (f) => f.ref === 'still-there');
  });

  it('a bad message gets an error event and the connection stays', async () => {
    const cases: Array<[string | Buffer, string, string | undefined]> = [
      ['not json', PROTOCOL_MESSAGES.notJson, undefined],
      [Buffer.from([1, 2, 3]), PROTOCOL_MESSAGES.binary, undefined],
      [JSON.stringify({ data: {} }), PROTOCOL_MESSAGES.envelope, undefined],
      [JSON.stringify({ event: 'offer.respond', data: {}, extra: 1 }), PROTOCOL_MESSAGES.envelope, undefined],
      [JSON.stringify({ event: 'nope', ref: 'b1' }), PROTOCOL_MESSAGES.unknownEvent, 'b1'],
      [JSON.stringify({ event: 'offer.respond', data: { id: 'x' }, ref: 'b2' }), PROTOCOL_MESSAGES.invalidData, 'b2'],
      [JSON.stringify({ event: 'offer.respond', data: { id: randomUUID(), dniTecnico: '1' }, ref: 'b3' }), PROTOCOL_MESSAGES.invalidData, 'b3'],
      [JSON.stringify({ event: 'position', data: { latitud: 91, longitud: 0 }, ref: 'b4' }), PROTOCOL_MESSAGES.invalidData, 'b4'],
    ];
    for (const [raw, message, ref] of cases) {
      const before = tech.events('error').length;
      tech.ws.send(raw, { binary: Buffer.isBuffer(raw) });
      await tech.next('error', () => tech.events('error').length > before);
      const last = tech.events('error').at(-1)!;
      expect(last.data, String(raw)).to.have.property('message', message);
      expect(last.ref).to.equal(ref);
    }
    const invalid = tech.events('error').find((f) => f.ref === 'b2')!;
    expect((invalid.data as { details: { errors: Array<{ path: string }> } }).details.errors[0].path).to.equal('/id');
    expect(calls).to.deep.equal([]);
    tech.send('ping', {}, 'alive');
    await tech.next('pong', (f) => f.ref === 'alive');
  });

  it('a generator may not send technicians’ events', async () => {
    const s = await connect(wsUrl(app.url), { headers: gen.headers });
    s.send('offer.respond', { id: randomUUID() }, 'g');
    expect((await s.next('error')).data).to.deep.equal({ message: PROTOCOL_MESSAGES.forbiddenEvent, details: { event: 'offer.respond' } });
    expect(calls).to.deep.equal([]);
    await s.close();
  });

  it(`bounds the actions running for one socket to ${MAX_INFLIGHT_PER_SOCKET}`, async () => {
    let open!: () => void;
    gate = new Promise<void>((resolve) => (open = resolve));
    for (let i = 0; i <= MAX_INFLIGHT_PER_SOCKET; i++) tech.send('offer.respond', { id: randomUUID() }, `q-${i}`);
    const busy = await tech.next('error', (f) => f.ref === `q-${MAX_INFLIGHT_PER_SOCKET}`);
    expect(busy.data).to.have.property('message', PROTOCOL_MESSAGES.busy);
    gate = null;
    open();
    for (let i = 0; i < MAX_INFLIGHT_PER_SOCKET; i++) await tech.next('offer.respond.result', (f) => f.ref === `q-${i}`);
    expect(calls).to.have.length(MAX_INFLIGHT_PER_SOCKET);
  });

  it('a central deactivated after the upgrade is answered 401 and disconnected (4401)', async () => {
    const em = app.rt.orm.em.fork();
    const other = await makeCrew(em);
    const s = await connect(wsUrl(app.url), { headers: other.headers });
    await em.nativeUpdate(ApiUser, { id: other.user.id }, { status: 'INACTIVO' });
    const closed = s.closed();
    s.send('offer.respond', { id: randomUUID() }, 'late');
    const res = await s.next('offer.respond.result', (f) => f.ref === 'late');
    expect(res.data).to.have.nested.property('status', 401);
    expect(res.data).to.have.nested.property('body.msg', AUTH_MESSAGES.keyInactive);
    expect(await closed).to.equal(4401);
    expect(calls).to.deep.equal([]);
  });
});

describe('real time: technician messages with an action left out', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({ http: { realtime: { actions: {} } } });
    await resetDb(app.rt.orm);
  });
  after(async () => app.close());

  it('answers each with an error event naming the event', async () => {
    const em = app.rt.orm.em.fork();
    await makeServiceType(em);
    const crew = await makeCrew(em);
    const s = await connect(wsUrl(app.url), { headers: crew.headers });
    s.send('offer.respond', { id: randomUUID() }, 'x');
    s.send('position', { latitud: 4.6, longitud: -74.1 }, 'y');
    s.send('progress', { id: randomUUID(), estado: 'EN_SITIO' }, 'z');
    for (const [ref, event] of [['x', 'offer.respond'], ['y', 'position'], ['z', 'progress']]) {
      expect((await s.next('error', (f) => f.ref === ref)).data).to.deep.equal({ message: PROTOCOL_MESSAGES.unavailable, details: { event } });
    }
    await s.close();
  });
});

describe('real time: technician messages call the domain (default wiring)', () => {
  let app: TestApp;
  let crew: Crew;
  let generator: ApiUser;
  let s: TestSocket;
  before(async () => {
    app = await startApp();
    await resetDb(app.rt.orm);
    const em = app.rt.orm.em.fork();
    await makeServiceType(em);
    // D24: each action needs its route's permission, as over HTTP
    crew = await makeCrew(em, { endpoints: ['/aceptacion', '/estado-servicio', '/posicion-tecnico'] });
    ({ user: generator } = await makeApiUser(em, { nit: '800111222', urlApi: 'http://generator.test', apiEndpoint: { respuesta: '/r' } }));
    s = await connect(wsUrl(app.url), { headers: crew.headers });
  });
  after(async () => {
    await s.close();
    await app.close();
  });

  it('offer.respond records the response to an open offer, as PUT /aceptacion would', async () => {
    const offer = await makeOffer(app.rt.orm.em.fork(), generator);
    await distributeTo(app.rt.orm.em.fork(), offer.uuid, crew.central); // D20: only a recipient answers
    s.send('offer.respond', { id: offer.uuid, tiempoLlegadaSitio: 7 }, 'r');
    const res = await s.next('offer.respond.result', (f) => f.ref === 'r');
    expect(res.data).to.deep.equal({
      status: 200,
      body: { status: true, data: 'RESPUESTA ACEPTADA, ESPERA POR FAVOR A QUE SE CONFIRME LA ASIGNACIÓN DEL SERVICIO' },
    });
    const stored = await app.rt.orm.em.fork().findOneOrFail(OfferResponse, { offer: offer.uuid });
    expect(stored).to.deep.include({ timeMin: 7, timeGiven: true });
    expect(stored.technician.id).to.equal(crew.technician.id);
  });

  it('offer.respond is refused as PUT /aceptacion refuses an implausible response (D20): not a recipient, a busy technician, an arrival too soon', async () => {
    const em = app.rt.orm.em.fork();
    const respond = async (ref: string, data: Record<string, unknown>) => {
      s.send('offer.respond', data, ref);
      return (await s.next('offer.respond.result', (f) => f.ref === ref)).data;
    };
    const refused = (text: string) => ({ status: 400, body: { status: false, data: text } });
    const never = await makeOffer(em, generator);
    expect(await respond('d20-1', { id: never.uuid, tiempoLlegadaSitio: 7 })).to.deep.equal(refused('LA OFERTA NO FUE ENVIADA A ESTA CENTRAL'));
    const far = await makeOffer(em, generator);
    await distributeTo(em, far.uuid, crew.central);
    // about 16 km from the origin: at least 8 minutes at 120 km/h
    expect(await respond('d20-2', { id: far.uuid, tiempoLlegadaSitio: 2, latitudTecnico: 4.8, longitudTecnico: -74.0836 })).to.deep.equal(
      refused('TIEMPO DE LLEGADA NO PLAUSIBLE'),
    );
    const held = await makeOffer(em, generator, { state: 'ASIGNADA', assignedCentral: crew.central, assignedTechnician: crew.technician });
    await em.nativeUpdate(Technician, { id: crew.technician.id }, { busyOfferUuid: held.uuid });
    try {
      expect(await respond('d20-3', { id: far.uuid, tiempoLlegadaSitio: 30 })).to.deep.equal(refused('EL TÉCNICO TIENE OTRO SERVICIO EN CURSO'));
    } finally {
      await em.nativeUpdate(Technician, { id: crew.technician.id }, { busyOfferUuid: null });
    }
    expect(await app.rt.orm.em.fork().count(OfferResponse, { offer: { $in: [never.uuid, far.uuid] } }), 'nothing recorded').to.equal(0);
  });

  it('position moves the technician', async () => {
    s.send('position', { latitud: 4.7, longitud: -74.05 }, 'p');
    const res = await s.next('position.result', (f) => f.ref === 'p');
    expect((res.data as ActionResult).status).to.equal(200);
    const tech = await app.rt.orm.em.fork().findOneOrFail(Technician, crew.technician.id);
    expect([tech.lat, tech.lng]).to.deep.equal([4.7, -74.05]);
  });

  it('progress moves the service assigned to this technician, and no other', async () => {
    const em = app.rt.orm.em.fork();
    const mine = await makeOffer(em, generator, { state: 'ASIGNADA', assignedCentral: crew.central, assignedTechnician: crew.technician });
    const other = await makeCrew(em);
    const theirs = await makeOffer(em, generator, { state: 'ASIGNADA', assignedCentral: other.central, assignedTechnician: other.technician });
    s.send('progress', { id: mine.uuid, estado: 'EN_CAMINO' }, 'g1');
    s.send('progress', { id: theirs.uuid, estado: 'EN_CAMINO' }, 'g2');
    expect((await s.next('progress.result', (f) => f.ref === 'g1')).data).to.have.property('status', 200);
    expect((await s.next('progress.result', (f) => f.ref === 'g2')).data).to.have.property('status', 404);
    const fresh = app.rt.orm.em.fork();
    expect((await fresh.findOneOrFail(Offer, mine.uuid)).state).to.equal('EN_CAMINO');
    expect((await fresh.findOneOrFail(Offer, theirs.uuid)).state).to.equal('ASIGNADA');
  });
});
