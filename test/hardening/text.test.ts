/**
 * Issue 8.3 and D19: a NUL character or a lone surrogate in any string a client sends (body,
 * unknown field, key, query string, Basic credentials, login, socket message) is answered 400 in
 * the route's own envelope; nothing is stored, nothing is looked up, no 500; a valid emoji (a
 * surrogate pair) is still accepted. Log lines never carry SQL parameter values.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { ApiUser, Offer } from '../../src/db/entities/index.js';
import { AUTH_MESSAGES } from '../../src/http/auth/index.js';
import { serializeError } from '../../src/logger.js';
import { findUnstorableText, storableText, unstorableTextMessage } from '../../src/text.js';
import { resetDb } from '../helpers/db.js';
import { expectKeyEnvelope, expectSystemEnvelope } from '../helpers/envelopes.js';
import { makeOperator, makeServiceType } from '../helpers/factories.js';
import { basic, startApp, type TestApp } from '../helpers/harness.js';
import { clearQueues } from '../helpers/queues.js';
import { makeGenerator, makeResponder, offerBody, type Generator, type Responder } from '../helpers/offers.js';
import { connect, makeCrew, refusal, wsUrl } from '../helpers/sockets.js';

const NUL = 'antes\u0000después';
const LONE = 'antes\ud800después';
const BAD = { NUL, 'lone surrogate': LONE } as const;

type Envelope = 'controller' | 'data';

/** JSON routes and a body reaching validation; `field` is the string replaced by the bad text. */
const ROUTES: Array<{ method: 'POST' | 'PUT' | 'GET'; path: string; auth: 'basic' | 'key'; envelope: Envelope; body: () => Record<string, unknown> }> = [
  { method: 'POST', path: 'oferta', auth: 'basic', envelope: 'controller', body: () => offerBody() },
  { method: 'GET', path: 'offer-responses', auth: 'basic', envelope: 'controller', body: () => ({ uuid: randomUUID() }) },
  { method: 'POST', path: 'asignacion', auth: 'basic', envelope: 'controller', body: () => ({ uuid: randomUUID(), placa: 'ABC123' }) },
  { method: 'POST', path: 'no-asignacion', auth: 'basic', envelope: 'controller', body: () => ({ uuid: randomUUID(), motivo: 'x' }) },
  { method: 'POST', path: 'cancelacion', auth: 'basic', envelope: 'controller', body: () => ({ uuid: randomUUID(), motivo: 'x' }) },
  { method: 'POST', path: 'add-address', auth: 'basic', envelope: 'controller', body: () => ({ uuid: randomUUID(), direccion: 'Calle 1' }) },
  {
    method: 'POST',
    path: 'asignacion-directa',
    auth: 'basic',
    envelope: 'controller',
    body: () => offerBody({ dniPrestador: '900000001', dniTecnico: '1020304050' }),
  },
  { method: 'POST', path: 'queries/history', auth: 'basic', envelope: 'controller', body: () => ({ line: 'ASISTENCIA', autNumber: 'A-1' }) },
  { method: 'POST', path: 'finalize', auth: 'basic', envelope: 'controller', body: () => ({ uuid: randomUUID() }) },
  { method: 'PUT', path: 'aceptacion', auth: 'key', envelope: 'data', body: () => ({ id: randomUUID(), dniPrestador: '900000001', dniTecnico: '1' }) },
  { method: 'PUT', path: 'estado-servicio', auth: 'key', envelope: 'data', body: () => ({ id: randomUUID(), estado: 'EN_CAMINO' }) },
  { method: 'PUT', path: 'posicion-tecnico', auth: 'key', envelope: 'data', body: () => ({ dniTecnico: '1', latitud: 4.6, longitud: -74.1 }) },
];

describe('hardening: NUL characters and lone surrogates (issue 8.3, D19)', () => {
  let app: TestApp;
  let gen: Generator;
  let central: Responder;

  before(async () => {
    app = await startApp();
    await resetDb(app.rt.orm);
    const em = app.rt.orm.em.fork();
    await makeServiceType(em, { id: 1 });
    gen = await makeGenerator(em);
    central = await makeResponder(em);
    central.user.endpoints = ['*'];
    await em.flush();
  });
  after(async () => {
    // Offers were created without workers: their jobs must not run in a later suite.
    if (app) await clearQueues(app.rt);
    await app?.close();
  });

  const offers = () => app.rt.orm.em.fork().count(Offer);
  const serverErrors = () => app.logs.filter((l) => Number(l.level) >= 50);

  describe('findUnstorableText', () => {
    it('names the first field, key or array item with a NUL or a lone surrogate, and accepts emoji', () => {
      expect(findUnstorableText({ a: 'ok', vehiculo: { marca: NUL } })).to.equal('vehiculo.marca');
      expect(findUnstorableText({ paradas: ['ok', LONE] })).to.equal('paradas[1]');
      expect(findUnstorableText({ ['cla\u0000ve']: 1 })).to.equal('cla\u0000ve');
      expect(findUnstorableText(LONE)).to.equal('');
      expect(findUnstorableText({ observaciones: 'grúa 🚗 \ud83d\ude97', n: 1, b: null })).to.equal(null);
      expect(findUnstorableText('\udc00')).to.equal('');
      let deep: unknown = NUL;
      for (let i = 0; i < 10000; i++) deep = [deep];
      expect(findUnstorableText({ deep })).to.match(/^deep(\[0\]){10000}$/);
      expect(storableText('a\u0000b\ud800c🚗')).to.equal('a\ufffdb\ufffdc🚗');
      expect(unstorableTextMessage('observaciones')).to.equal("EL CAMPO 'observaciones' CONTIENE CARACTERES NO PERMITIDOS");
    });
  });

  for (const route of ROUTES) {
    for (const [kind, bad] of Object.entries(BAD)) {
      for (const where of ['a field', 'an unknown field', 'a key'] as const) {
        it(`${route.method} /${route.path} with ${kind} in ${where}: 400 in its envelope, nothing stored`, async () => {
          const body = route.body();
          let field: string;
          if (where === 'a field') {
            field = Object.keys(body).find((k) => typeof body[k] === 'string' && k !== 'uuid' && k !== 'id') ?? Object.keys(body)[0];
            body[field] = bad;
          } else if (where === 'an unknown field') {
            field = 'extra.nota';
            body.extra = { nota: bad };
          } else {
            field = `c${bad}`;
            body[field] = 'x';
          }
          const before = await offers();
          const res = await app.client(route.path, {
            prefixUrl: `${app.url}/api/v3`,
            method: route.method,
            json: body,
            headers: route.auth === 'basic' ? { authorization: gen.auth } : { 'x-apikey': central.key },
          });
          expect(res.statusCode, JSON.stringify(res.body)).to.equal(400);
          const reply = res.body as unknown as Record<string, unknown>;
          const message = unstorableTextMessage(field);
          expect(reply.status).to.equal(false);
          if (route.envelope === 'data') expect(reply.data).to.equal(message);
          else expect(reply.msg).to.equal(message);
          expect(await offers()).to.equal(before);
          expect(serverErrors()).to.deep.equal([]);
        });
      }
    }
  }

  it('GET /offer-responses?uuid= with a NUL is a 400 with data: []', async () => {
    const res = await app.client('api/v3/offer-responses?uuid=%00abc', { headers: { authorization: gen.auth } });
    expect(res.statusCode).to.equal(400);
    expect(res.body).to.deep.equal({ status: false, msg: unstorableTextMessage('uuid'), data: [] });
  });

  it('a valid emoji (a surrogate pair) is still accepted and stored as it is', async () => {
    const body = offerBody({ observaciones: 'Cliente con mascota 🐕 y bebé 👶' });
    const res = await app.client.post('api/v3/oferta', { json: body, headers: { authorization: gen.auth } });
    expect(res.statusCode, JSON.stringify(res.body)).to.equal(200);
    const offer = await app.rt.orm.em.fork().findOneOrFail(Offer, { uuid: body.uuid as string });
    expect(offer.observaciones).to.contain('🐕 y bebé 👶');
  });

  it('a Basic username or password with a NUL is a 400 in the system envelope, before any lookup', async () => {
    for (const auth of [basic(`gen\u0000x`, 'pw'), basic('gen', 'p\u0000w')]) {
      const res = await app.client('api/v3/types', { headers: { authorization: auth } });
      expect(res.statusCode).to.equal(400);
      expectSystemEnvelope(res.body, AUTH_MESSAGES.basicUnstorable);
    }
    expect(serverErrors()).to.deep.equal([]);
  });

  it('POST /users/login and the /admin/login form with a NUL or a lone surrogate answer 400', async () => {
    const { operator, password } = await makeOperator(app.rt.orm.em.fork());
    for (const json of [{ username: `${operator.username}\u0000`, password }, { username: operator.username, password: `${password}\ud800` }]) {
      const res = await app.client.post('api/v3/users/login', { json });
      expect(res.statusCode).to.equal(400);
      expect((res.body as unknown as Record<string, unknown>).msg).to.match(/^EL CAMPO '(username|password)' CONTIENE CARACTERES NO PERMITIDOS$/);
    }
    const form = await app.client.post('admin/login', {
      body: `username=${encodeURIComponent(operator.username)}%00&password=${encodeURIComponent(password)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      responseType: 'text',
    });
    expect(form.statusCode).to.equal(400);
    expect(form.body).to.contain('caracteres no permitidos');
    expect(serverErrors()).to.deep.equal([]);
  });

  it('the socket upgrade refuses Basic credentials with a NUL (400) and socket messages with bad text answer an error event', async () => {
    const refused = await refusal(wsUrl(app.url), { headers: { authorization: basic('gen\u0000', 'pw') } });
    expect(refused.status).to.equal(400);
    expectSystemEnvelope(refused.body, AUTH_MESSAGES.basicUnstorable);

    const crew = await makeCrew(app.rt.orm.em.fork());
    const tooLong = await refusal(wsUrl(app.url), { headers: { ...crew.headers, 'x-dni-tecnico': '9'.repeat(65) } });
    expect(tooLong.status).to.equal(403);
    expectKeyEnvelope(tooLong.body, 'NO SE ENCONTRÓ EL TÉCNICO');

    const tech = await connect(wsUrl(app.url), { headers: crew.headers });
    const before = await offers();
    tech.ws.send(JSON.stringify({ event: 'offer.respond', data: { id: randomUUID(), tiempoLlegadaSitio: 5, nota: NUL }, ref: 'r1' }));
    tech.ws.send(JSON.stringify({ event: 'position', data: { latitud: 4.6, longitud: -74.1, ['k\ud800']: 1 }, ref: 'r2' }));
    const first = await tech.next('error', (f) => JSON.stringify(f.data).includes('nota'));
    expect((first.data as { message: string }).message).to.equal(unstorableTextMessage('data.nota'));
    const second = await tech.next('error', (f) => (f.data as { message: string }).message.startsWith("EL CAMPO 'data.k"));
    expect(second.data).to.have.property('details');
    expect(await offers()).to.equal(before);
    await tech.close();
    expect(serverErrors()).to.deep.equal([]);
  });

  it('a database error is logged with its class, SQLSTATE and frames but without the SQL or its values', async () => {
    const secret = 'Calle Secreta 742 del cliente';
    let caught: unknown;
    try {
      await app.rt.orm.em.fork().getConnection().execute('insert into offer (uuid, state) values (?, ?)', [secret, secret]);
    } catch (err) {
      caught = err;
    }
    expect(caught).to.be.instanceOf(Error);
    app.rt.log.error({ err: caught, wrapped: undefined }, 'forced database error');
    app.rt.log.error({ err: new Error('outer', { cause: caught }) }, 'forced wrapped database error');
    const lines = app.logs.filter((l) => String(l.msg).startsWith('forced'));
    expect(lines).to.have.length(2);
    for (const line of lines) {
      const text = JSON.stringify(line);
      expect(text, text).not.to.contain('Secreta');
      expect(text, text).not.to.contain('insert into');
    }
    const err = lines[0].err as Record<string, unknown>;
    expect(err.type).to.equal('DatabaseError');
    expect(err.code).to.equal('22P02');
    expect(err.stack).to.match(/^\s+at /);
    expect(((lines[1].err as Record<string, unknown>).cause as Record<string, unknown>).code).to.equal('22P02');
    // Through MikroORM's unit of work: a DriverException whose message and props hold the SQL and values.
    const em = app.rt.orm.em.fork();
    em.create(ApiUser, {
      username: secret,
      passwordSha256: '0'.repeat(64),
      status: 'ACTIVO',
      endpoints: ['*'],
      businessName: secret,
      nit: secret.repeat(10),
      apiKeyHash: null,
      previousApiKeyHash: null,
      previousKeyUntil: null,
      outboundKey: null,
      urlApi: null,
      apiEndpoint: {},
      webhookSecret: null,
      requiresPaymentConfirmation: false,
    });
    const flushed = await em.flush().then(
      () => null,
      (e: unknown) => e,
    );
    expect(flushed).to.be.instanceOf(Error);
    expect(String((flushed as Error).message)).to.contain('Secreta');
    app.rt.log.error({ err: flushed }, 'forced orm error');
    const ormLine = JSON.stringify(app.logs.find((l) => l.msg === 'forced orm error'));
    expect(ormLine, ormLine).not.to.contain('Secreta');
    expect(ormLine).to.contain('"code":"22001"').and.to.match(/"type":"\w+Exception"/);
    // An ordinary error keeps pino's usual form.
    expect(serializeError(new Error('plain'))).to.include({ type: 'Error', message: 'plain' });
  });
});
