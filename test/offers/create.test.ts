import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { GazetteerEntry, Offer, OfferTransition } from '../../src/db/entities/index.js';
import { OFFER_MESSAGES } from '../../src/api/offers/createOffer.js';
import { DEFAULT_DESCRIPTION } from '../../src/domain/offers/create/input.js';
import { jobId } from '../../src/queues/registry.js';
import { EVALUATION_LEAD_MS } from '../../src/domain/offers/create/schedule.js';
import { busChannel, type BusMessage } from '../../src/realtime/bus.js';
import { resetDb } from '../helpers/db.js';
import { makeServiceType } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { acceptanceBody, distributeTo, makeGenerator, makeResponder, offerBody, type Generator } from '../helpers/offers.js';
import { stubMethod } from '../helpers/stub.js';
import { waitFor } from '../helpers/wait.js';
import type { Queues } from '../../src/queues/queues.js';

interface Reply {
  status: boolean;
  msg: string;
  data?: { uuid: string; offersResponses: unknown[] };
}

describe('POST /oferta', () => {
  let app: TestApp;
  let gen: Generator;

  const post = (body: unknown, auth = gen.auth) =>
    app.client.post('api/v3/oferta', { json: body, headers: { authorization: auth } }).then((r) => ({ code: r.statusCode, body: r.body as unknown as Reply }));
  const load = (uuid: string) => app.rt.orm.em.fork().findOne(Offer, { uuid });
  const expect400 = async (body: unknown, msg: string) => {
    const res = await post(body);
    expect(res.code, JSON.stringify(res.body)).to.equal(400);
    expect(res.body).to.deep.equal({ status: false, msg });
  };

  before(async () => {
    app = await startApp();
    await resetDb(app.rt.orm);
    const em = app.rt.orm.em.fork();
    await makeServiceType(em, { id: 1, type: 'GRUA' });
    await makeServiceType(em, { id: 3, type: 'CERRAJERIA', requiredDestination: false });
    await makeServiceType(em, { id: 9, type: ' ' });
    gen = await makeGenerator(em);
    em.create(GazetteerEntry, { address: 'Carrera 7 # 72-41', addressKey: 'carrera 7 # 72 41', lat: 4.6571, lng: -74.0555, ciudad: 'Bogotá D.C.', departamento: 'Cundinamarca' });
    em.create(GazetteerEntry, { address: 'Medellín', addressKey: 'medellin', lat: 6.2442, lng: -75.5812, ciudad: 'Medellín', departamento: 'Antioquia' });
    await em.flush();
  });
  after(async () => app.close());

  describe('a new offer', () => {
    it('is stored ABIERTA with its deadline, expiry and audit row, its two jobs are enqueued, and then 200 is answered', async () => {
      const body = offerBody();
      const res = await post(body);
      expect(res.code).to.equal(200);
      expect(res.body).to.deep.equal({ status: true, msg: 'SE HA RECIBIDO EXITOSAMENTE LA OFERTA DEL SERVICIO' });
      const offer = await load(body.uuid as string);
      expect(offer?.state).to.equal('ABIERTA');
      expect(offer!.generator.id).to.equal(gen.user.id);
      expect(offer!.deadlineAt!.getTime() - offer!.createdAt.getTime()).to.equal(app.rt.config.offerResponseWindowMs);
      expect(offer!.expiresAt!.getTime() - offer!.createdAt.getTime()).to.equal(app.rt.config.offerMaxOpenMs);
      const audit = await app.rt.orm.em.fork().find(OfferTransition, { offer: offer!.uuid });
      expect(audit.map((t) => [t.fromState, t.toState, t.actor])).to.deep.equal([[null, 'ABIERTA', `api-user:${gen.user.username}`]]);
      const uuid = offer!.uuid;
      const distribute = await app.rt.queues.get('offer-distribution').getJob(jobId('distribute', uuid));
      const evaluate = await app.rt.queues.get('offer-evaluation').getJob(jobId('evaluate', uuid));
      const expire = await app.rt.queues.get('offer-expiry').getJob(jobId('expire', uuid));
      expect(distribute?.data).to.deep.equal({ offerUuid: uuid });
      // due at the deadline less its lead (ISS32-11): the delay counts from the enqueue, a few ms after the offer's creation
      expect(evaluate!.timestamp + evaluate!.opts.delay!).to.be.closeTo(offer!.deadlineAt!.getTime() - EVALUATION_LEAD_MS, 20);
      expect(expire, 'the expiry is enqueued only if the window closes unanswered').to.equal(undefined);
    });

    it('is acknowledged once committed even when Redis refuses the enqueue; the failure is logged for the sweeper', async () => {
      const restore = stubMethod(app.rt.queues, 'addMany', (async () => {
        throw new Error("OOM command not allowed when used memory > 'maxmemory'");
      }) as Queues['addMany']);
      const body = offerBody();
      try {
        const res = await post(body);
        expect(res.code).to.equal(200);
        expect(res.body).to.deep.equal({ status: true, msg: 'SE HA RECIBIDO EXITOSAMENTE LA OFERTA DEL SERVICIO' });
      } finally {
        restore();
      }
      expect((await load(body.uuid as string))?.state).to.equal('ABIERTA');
      expect(app.logs.some((l) => l.step === 'schedule offer jobs' && l.uuid === body.uuid)).to.equal(true);
    });

    it('stores every field of the body', async () => {
      const body = offerBody({
        descripcionServicio: 'Grúa para camioneta',
        puntoReferenciaOrigen: 'Frente al parque',
        direccionDestino: 'Taller Central',
        latitudDestino: 4.7,
        longitudDestino: -74.05,
        puntoReferenciaDestino: 'Portería 2',
        ciudad: 'Bogotá',
        departamento: 'Cundinamarca',
        fechaCita: '2026-12-24',
        horaCita: '18:45',
        observaciones: 'Cliente espera en el carro',
        vehiculo: { marca: 'KIA' },
        ofertante: 'Asistencias',
        internal: 1,
        global: 2,
        socketId: 's-1',
      });
      expect((await post(body)).code).to.equal(200);
      const o = await load(body.uuid as string);
      expect({ ...o, generator: o!.generator.id, serviceType: o!.serviceType.id }).to.deep.include({
        uuid: body.uuid,
        generator: gen.user.id,
        serviceType: 1,
        state: 'ABIERTA',
        originLat: 4.6533,
        originLng: -74.0836,
        direccionOrigen: 'Calle 53 # 13-40',
        puntoReferenciaOrigen: 'Frente al parque',
        ciudad: 'Bogotá',
        departamento: 'Cundinamarca',
        destLat: 4.7,
        destLng: -74.05,
        direccionDestino: 'Taller Central',
        puntoReferenciaDestino: 'Portería 2',
        descripcionServicio: 'Grúa para camioneta',
        fechaCita: '2026-12-24',
        horaCita: '18:45',
        observaciones: 'VEHÍCULO: Marca: KIA | Cliente espera en el carro',
        vehiculo: { marca: 'KIA' },
        priority: false,
        ofertante: 'Asistencias',
        internal: 1,
        global: 2,
        socketId: 's-1',
        stops: [],
        assignedCentral: null,
        assignedTechnician: null,
        acceptedResponse: null,
        ranking: null,
      });
      expect(o!.scheduledAt.toISOString()).to.equal('2026-12-24T23:45:00.000Z');
      expect(o!.updatedAt.getTime()).to.equal(o!.createdAt.getTime());
      const [row] = await app.rt.orm.em.fork().getConnection().execute<Array<{ lat: number; lng: number }>>(
        'select st_y(origin::geometry) as lat, st_x(origin::geometry) as lng from offer where uuid = ?',
        [body.uuid],
      );
      expect([row.lat, row.lng]).to.deep.equal([4.6533, -74.0836]);
    });

    it('applies the rules of 2.1: numeric strings, first service type, defaults, trimmed date, offerer, priority', async () => {
      const body = offerBody({
        tipoServicio: '3,1,5',
        latitudOrigen: '4.6533',
        longitudOrigen: ' -74.0836 ',
        fechaCita: '   ',
        horaCita: '10:15',
        guardian: 'SI',
        subOfertante: 'Sucursal Norte',
        internal: '12345',
        global: 777,
        socketId: 'sock-1',
      });
      expect((await post(body)).code).to.equal(200);
      const offer = await load(body.uuid as string);
      expect(offer!.serviceType.id).to.equal(3);
      expect([offer!.originLat, offer!.originLng]).to.deep.equal([4.6533, -74.0836]);
      expect(offer!.descripcionServicio).to.equal('CERRAJERIA');
      expect(offer!.fechaCita).to.equal(null);
      expect(Math.abs(offer!.scheduledAt.getTime() - offer!.createdAt.getTime())).to.be.lessThan(1000);
      expect(offer!.ofertante).to.equal('Aseguradora Andina S.A. - Sucursal Norte');
      expect(offer!.priority).to.equal(true);
      expect([offer!.internal, offer!.global]).to.deep.equal([12345, 777]);
      expect(offer!.socketId).to.equal('sock-1');
    });

    it('defaults the description to SERVICIO NO ESPECIFICADO when the type has no name, keeps a given offerer, guardian NO', async () => {
      const body = offerBody({ tipoServicio: 9, ofertante: 'Broker X', guardian: 'NO' });
      expect((await post(body)).code).to.equal(200);
      const offer = await load(body.uuid as string);
      expect(offer!.descripcionServicio).to.equal(DEFAULT_DESCRIPTION);
      expect(offer!.ofertante).to.equal('Broker X');
      expect(offer!.priority).to.equal(false);
    });

    it('schedules fechaCita + horaCita in America/Bogota (UTC-5)', async () => {
      const body = offerBody({ fechaCita: ' 2026-12-01 ', horaCita: '08:30' });
      expect((await post(body)).code).to.equal(200);
      const offer = await load(body.uuid as string);
      expect(offer!.fechaCita).to.equal('2026-12-01');
      expect(offer!.scheduledAt.toISOString()).to.equal('2026-12-01T13:30:00.000Z');
    });

    it('prepends the vehicle legend to the comments, only when a vehicle field has data', async () => {
      const withCar = offerBody({
        observaciones: 'Llanta pinchada',
        vehiculo: { marca: 'MAZDA', linea: '3', detalleLinea: '', modelo: '2020', tipoCombustible: 'GASOLINA', blindaje: 'NO' },
      });
      const empty = offerBody({ observaciones: 'Sin datos', vehiculo: { marca: '', linea: ' ' } });
      expect((await post(withCar)).code).to.equal(200);
      expect((await post(empty)).code).to.equal(200);
      const a = await load(withCar.uuid as string);
      expect(a!.observaciones).to.equal('VEHÍCULO: Marca: MAZDA, Línea: 3, Modelo: 2020, Combustible: GASOLINA, Blindaje: NO | Llanta pinchada');
      expect(a!.vehiculo).to.deep.equal({ marca: 'MAZDA', linea: '3', modelo: '2020', tipoCombustible: 'GASOLINA', blindaje: 'NO' });
      const b = await load(empty.uuid as string);
      expect(b!.observaciones).to.equal('Sin datos');
      expect(b!.vehiculo).to.equal(null);
    });

    it('geocodes an address-only origin and destination; city and department come from the result', async () => {
      const body = offerBody({
        latitudOrigen: 0,
        longitudOrigen: '',
        direccionOrigen: 'CARRERA 7 # 72-41',
        ciudad: 'Otra',
        direccionDestino: 'Medellín',
      });
      expect((await post(body)).code).to.equal(200);
      const offer = await load(body.uuid as string);
      expect([offer!.originLat, offer!.originLng, offer!.ciudad, offer!.departamento]).to.deep.equal([4.6571, -74.0555, 'Bogotá D.C.', 'Cundinamarca']);
      expect([offer!.destLat, offer!.destLng, offer!.direccionDestino]).to.deep.equal([6.2442, -75.5812, 'Medellín']);
    });

    it('keeps given destination coordinates without geocoding the destination address', async () => {
      const body = offerBody({ direccionDestino: 'no existe en el gazetteer', latitudDestino: '6.25', longitudDestino: -75.56 });
      expect((await post(body)).code).to.equal(200);
      const offer = await load(body.uuid as string);
      expect([offer!.destLat, offer!.destLng]).to.deep.equal([6.25, -75.56]);
    });
  });

  describe('400 answers (4.1 and ours)', () => {
    it('missing uuid (absent or empty), checked first', async () => {
      const msg = "NO SE RECIBIÓ EL CAMPO 'uuid', REQUERIDO PARA EJECUTAR LA OFERTA DEL SERVICIO";
      await expect400(offerBody({ uuid: undefined }), msg);
      await expect400(offerBody({ uuid: '' }), msg);
      await expect400({}, msg);
    });

    it('missing tipoServicio (absent or empty)', async () => {
      const msg = "EL CAMPO 'tipoServicio' ES REQUERIDO PARA REALIZAR LA OFERTA DEL SERVICIO";
      await expect400(offerBody({ tipoServicio: undefined }), msg);
      await expect400(offerBody({ tipoServicio: '' }), msg);
    });

    it('neither coordinates nor address of origin (0 and empty count as missing, so does half a pair)', async () => {
      const msg = 'ES NECESARIO LOS DATOS DE LA DIRECCIÓN DE ORIGEN O LAS COORDENADAS DE LA MISMA';
      await expect400(offerBody({ latitudOrigen: undefined, longitudOrigen: undefined, direccionOrigen: undefined }), msg);
      await expect400(offerBody({ latitudOrigen: 0, longitudOrigen: '', direccionOrigen: '  ' }), msg);
      await expect400(offerBody({ latitudOrigen: '4.6', longitudOrigen: null, direccionOrigen: null }), msg);
    });

    it('an origin address that cannot be geocoded', async () => {
      await expect400(
        offerBody({ latitudOrigen: undefined, longitudOrigen: undefined, direccionOrigen: 'Calle que no existe 123' }),
        'LA DIRECCIÓN DE ORIGEN NO FUE POSIBLE IDENTIFICARLA, POR FAVOR VERIFICA LOS DATOS',
      );
    });

    it('a destination address that cannot be geocoded: the message starts as the spec says and advises omitting it', async () => {
      const res = await post(offerBody({ direccionDestino: 'Vereda desconocida' }));
      expect(res.code).to.equal(400);
      expect(res.body.status).to.equal(false);
      expect(res.body.msg.startsWith('LA DIRECCIÓN DE DESTINO NO FUE POSIBLE IDENTIFICARLA')).to.equal(true);
      expect(res.body.msg).to.contain("OMITE EL CAMPO 'direccionDestino'");
    });

    it('a malformed uuid, a malformed or unknown service type', async () => {
      await expect400(offerBody({ uuid: 'no-es-un-uuid' }), OFFER_MESSAGES.uuidInvalid);
      await expect400(offerBody({ uuid: 42 }), OFFER_MESSAGES.uuidInvalid);
      await expect400(offerBody({ tipoServicio: 'grua' }), OFFER_MESSAGES.typeInvalid);
      await expect400(offerBody({ tipoServicio: 1.5 }), OFFER_MESSAGES.typeInvalid);
      await expect400(offerBody({ tipoServicio: '99999999999' }), OFFER_MESSAGES.typeInvalid);
      await expect400(offerBody({ tipoServicio: 99999999999 }), OFFER_MESSAGES.typeInvalid);
      await expect400(offerBody({ tipoServicio: '77' }), 'EL TIPO DE SERVICIO 77 NO EXISTE (CONSULTA GET /types)');
    });

    it('wrong types and out-of-range coordinates', async () => {
      await expect400(offerBody({ latitudOrigen: 'abc' }), "EL CAMPO 'latitudOrigen' DEBE SER UN NÚMERO");
      await expect400(offerBody({ longitudDestino: true }), "EL CAMPO 'longitudDestino' DEBE SER UN NÚMERO");
      await expect400(offerBody({ latitudOrigen: 91 }), "EL CAMPO 'latitudOrigen' DEBE ESTAR ENTRE -90 Y 90");
      await expect400(offerBody({ longitudOrigen: '-180.5' }), "EL CAMPO 'longitudOrigen' DEBE ESTAR ENTRE -180 Y 180");
      await expect400(offerBody({ observaciones: 12 }), "EL CAMPO 'observaciones' DEBE SER UN TEXTO");
      await expect400(offerBody({ vehiculo: 'MAZDA' }), "EL CAMPO 'vehiculo' DEBE SER UN OBJETO");
      await expect400(offerBody({ vehiculo: { marca: 5 } }), "EL CAMPO 'vehiculo.marca' DEBE SER UN TEXTO");
      await expect400(offerBody({ internal: 'x1' }), "EL CAMPO 'internal' DEBE SER UN NÚMERO ENTERO NO NEGATIVO");
      await expect400(offerBody({ global: -3 }), "EL CAMPO 'global' DEBE SER UN NÚMERO ENTERO NO NEGATIVO");
      await expect400(offerBody({ ciudad: 'x'.repeat(256) }), "EL CAMPO 'ciudad' EXCEDE LA LONGITUD MÁXIMA DE 255 CARACTERES");
      await expect400([offerBody()], OFFER_MESSAGES.notAnObject);
    });

    it('bad fechaCita and horaCita', async () => {
      await expect400(offerBody({ fechaCita: '01/12/2026' }), OFFER_MESSAGES.badDate);
      await expect400(offerBody({ fechaCita: '2026-02-30' }), OFFER_MESSAGES.badDate);
      await expect400(offerBody({ fechaCita: '2026-12-01', horaCita: '25:00' }), OFFER_MESSAGES.badTime);
      await expect400(offerBody({ fechaCita: '2026-12-01', horaCita: '8h' }), OFFER_MESSAGES.badTime);
    });

    it('stores nothing for a refused body', async () => {
      const body = offerBody({ latitudOrigen: 'abc' });
      expect((await post(body)).code).to.equal(400);
      expect(await load(body.uuid as string)).to.equal(null);
    });
  });

  it('401 in the system envelope without credentials', async () => {
    const res = await app.client.post('api/v3/oferta', { json: offerBody() });
    expect(res.statusCode).to.equal(401);
    expect(res.body).to.include({ error: true, message: 'No se han brindado las credenciales de acceso.' });
  });

  describe('a uuid that already exists (D3)', () => {
    it('same generator, still ABIERTA: 200 LA OFERTA YA ESTÁ SIENDO PROCESADA with the responses so far', async () => {
      const body = offerBody();
      expect((await post(body)).code).to.equal(200);
      const r = await makeResponder(app.rt.orm.em.fork());
      await distributeTo(app.rt.orm.em.fork(), body.uuid as string, r); // D20: only a recipient answers
      const acc = await app.client.put('api/v3/aceptacion', { json: acceptanceBody(body.uuid as string, r, { tiempoLlegadaSitio: 12 }), headers: { 'x-apikey': r.key } });
      expect(acc.statusCode).to.equal(200);
      const again = await post(body);
      expect(again.code).to.equal(200);
      expect(again.body.msg).to.equal('LA OFERTA YA ESTÁ SIENDO PROCESADA');
      expect(again.body.data!.uuid).to.equal(body.uuid);
      expect(again.body.data!.offersResponses).to.deep.equal([
        { distance: 1.106, techCoords: { latitud: '4.6633', longitud: '-74.0836' }, tech_names: r.technician.names, time: 12, rate: 4.5 },
      ]);
    });

    it('a socketId on the duplicate is stored and announced to the socket servers (offer.subscribe)', async () => {
      const body = offerBody();
      expect((await post(body)).code).to.equal(200);
      const sub = new Redis(app.rt.config.redisUrl);
      const seen: BusMessage[] = [];
      try {
        await sub.subscribe(busChannel(app.rt.config.queuePrefix));
        sub.on('message', (_c, m: string) => seen.push(JSON.parse(m) as BusMessage));
        expect((await post({ ...body, socketId: 'socket-42' })).body.msg).to.equal('LA OFERTA YA ESTÁ SIENDO PROCESADA');
        const msg = await waitFor(() => seen.find((m) => m.event === 'offer.subscribe'), 3000, 'offer.subscribe');
        expect(msg.audience).to.deep.equal({ kind: 'offer', offerUuid: body.uuid, apiUserId: gen.user.id });
        expect(msg.data).to.deep.equal({ uuid: body.uuid, socketId: 'socket-42' });
        expect((await load(body.uuid as string))!.socketId).to.equal('socket-42');
      } finally {
        sub.disconnect();
      }
    });

    it('same generator, offer past ABIERTA: 400 EL SERVICIO YA FUE OFERTADO', async () => {
      const body = offerBody();
      expect((await post(body)).code).to.equal(200);
      await app.rt.orm.em.fork().nativeUpdate(Offer, { uuid: body.uuid as string }, { state: 'SIN_RESPUESTA' });
      await expect400(body, 'EL SERVICIO YA FUE OFERTADO');
    });

    it('a repeated uuid is answered before any address is geocoded', async () => {
      const body = offerBody({ latitudOrigen: '', longitudOrigen: '', direccionOrigen: 'Carrera 7 # 72-41' });
      expect((await post(body)).code).to.equal(200);
      let lookups = 0;
      const geocode = app.rt.geocoder.geocode.bind(app.rt.geocoder);
      const restore = stubMethod(app.rt.geocoder, 'geocode', async (address: string) => {
        lookups += 1;
        return geocode(address);
      });
      try {
        expect((await post(body)).body.msg).to.equal('LA OFERTA YA ESTÁ SIENDO PROCESADA');
        const other = await makeGenerator(app.rt.orm.em.fork());
        expect((await post(body, other.auth)).body).to.deep.equal({ status: false, msg: OFFER_MESSAGES.alreadyOffered });
      } finally {
        restore();
      }
      expect(lookups).to.equal(0);
    });

    it("another generator's uuid: 400 EL SERVICIO YA FUE OFERTADO, nothing revealed, nothing changed", async () => {
      const body = offerBody();
      expect((await post(body)).code).to.equal(200);
      const other = await makeGenerator(app.rt.orm.em.fork());
      const res = await post({ ...body, socketId: 'intruder' }, other.auth);
      expect(res.code).to.equal(400);
      expect(res.body).to.deep.equal({ status: false, msg: 'EL SERVICIO YA FUE OFERTADO' });
      const offer = await load(body.uuid as string);
      expect(offer!.generator.id).to.equal(gen.user.id);
      expect(offer!.socketId).to.equal(null);
    });

    it('an upper-case spelling of an existing uuid is the same uuid', async () => {
      const body = offerBody();
      expect((await post(body)).code).to.equal(200);
      const again = await post({ ...body, uuid: (body.uuid as string).toUpperCase() });
      expect(again.body.msg).to.equal('LA OFERTA YA ESTÁ SIENDO PROCESADA');
    });

    it('20 concurrent requests of the same generator create exactly one offer; all answer 200', async () => {
      const body = offerBody();
      const all = await Promise.all(Array.from({ length: 20 }, () => post(body)));
      expect(all.map((r) => r.code)).to.deep.equal(Array(20).fill(200));
      const msgs = all.map((r) => r.body.msg);
      expect(msgs.filter((m) => m === OFFER_MESSAGES.received)).to.have.length(1);
      expect(msgs.filter((m) => m === OFFER_MESSAGES.processing)).to.have.length(19);
      expect(await app.rt.orm.em.fork().count(Offer, { uuid: body.uuid as string })).to.equal(1);
      expect(await app.rt.orm.em.fork().count(OfferTransition, { offer: body.uuid as string })).to.equal(1);
    });

    it('20 concurrent requests from two generators: one offer, only 200 and 400, never 500', async () => {
      const other = await makeGenerator(app.rt.orm.em.fork());
      const uuid = randomUUID();
      const all = await Promise.all(Array.from({ length: 20 }, (_, i) => post(offerBody({ uuid }), i % 2 ? other.auth : gen.auth)));
      const codes = all.map((r) => r.code);
      expect(codes.every((c) => c === 200 || c === 400), codes.join(',')).to.equal(true);
      expect(all.filter((r) => r.body.msg === OFFER_MESSAGES.received)).to.have.length(1);
      const offer = await load(uuid);
      const ownerAuth = offer!.generator.id === gen.user.id ? gen.auth : other.auth;
      all.forEach((r, i) => {
        const mine = (i % 2 ? other.auth : gen.auth) === ownerAuth;
        if (mine) expect(r.code).to.equal(200);
        else expect(r.body).to.deep.equal({ status: false, msg: 'EL SERVICIO YA FUE OFERTADO' });
      });
    });
  });
});
