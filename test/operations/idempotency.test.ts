/**
 * Retries that act once (D24, issue 29 item 8): `Idempotency-Key` on every
 * POST and PUT of generators and centrals. A retried /asignacion,
 * /cancelacion, /no-asignacion or /finalize answers the first 200 (without
 * the key it answers 403); a retried /add-address appends its stop once; the
 * same key with another body is 400 in the route's envelope; two requests at
 * once: one acts, the other gets 409 with Retry-After; the keys live in
 * PostgreSQL (a Redis loss changes nothing) for 24 hours. Real PostgreSQL and
 * Redis; no outside HTTP (no workers run).
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Offer, OfferResponse, OfferTransition, WebhookDelivery } from '../../src/db/entities/index.js';
import { IDEMPOTENCY_MESSAGES, REPLAYED_HEADER, beginIdempotent, isIdempotent } from '../../src/api/idempotency.js';
import { invoke } from '../../src/api/invoke.js';
import { ACCEPTANCE_MESSAGES } from '../../src/api/offers/acceptOffer.js';
import { openApiDocument } from '../../src/api/document/openapi.js';
import { OPERATIONS } from '../../src/api/operations.js';
import { GEOCODER_UNAVAILABLE, GeocoderError, type GeocodeResult } from '../../src/geocoding/geocoder.js';
import { pruneIdempotencyKeys } from '../../src/db/stores/idempotency.js';
import type { TestApp } from '../helpers/harness.js';
import { bodyOf, offerIn, startOps, type Generator, type Provider } from '../helpers/ops.js';
import { distributeTo, makeResponder } from '../helpers/offers.js';
import { stubMethod } from '../helpers/stub.js';
import { clearQueues } from '../helpers/queues.js';
import { waitFor } from '../helpers/wait.js';

describe('Idempotency-Key (D24): retries act once', () => {
  let app: TestApp;
  let gen: Generator;
  let other: Generator;
  let prov: Provider;

  before(async () => {
    // a Redis prefix of its own: one test wipes every key of it
    ({ app, gen, other, prov } = await startOps({ provider: { name: 'Grúas Idem' }, env: { QUEUE_PREFIX: `idem_${process.pid}_${Date.now().toString(36)}` } }));
  });
  after(async () => {
    // an offer was created without workers: its jobs must not run in a later suite
    await clearQueues(app.rt);
    await app.close();
  });

  const fork = () => app.rt.orm.em.fork();
  const post = (path: string, json: unknown, key?: string, auth = gen.auth) =>
    app.client.post(`api/v3/${path}`, { headers: { authorization: auth, ...(key === undefined ? {} : { 'idempotency-key': key }) }, json });
  const transitions = (uuid: string) => fork().count(OfferTransition, { offer: uuid });
  const deliveries = (uuid: string) => fork().count(WebhookDelivery, { offer: uuid });
  const keyRows = async (key: string) => (await fork().execute<Array<{ n: string }>>(`select count(*) as n from idempotency_key where key = ?`, [key]))[0].n;

  describe('a retried operation answers its first answer, without acting twice', () => {
    const cases = [
      { path: 'asignacion', from: 'ACEPTADA', to: 'ASIGNADA', body: (uuid: string) => ({ uuid, placa: 'ABC123' }) },
      { path: 'cancelacion', from: 'ASIGNADA', to: 'CANCELADA', body: (uuid: string) => ({ uuid, motivo: 'el cliente desistió' }) },
      { path: 'no-asignacion', from: 'ACEPTADA', to: 'NO_ASIGNADA', body: (uuid: string) => ({ uuid }) },
      { path: 'finalize', from: 'EN_SITIO', to: 'FINALIZADA', body: (uuid: string) => ({ uuid }) },
    ] as const;
    for (const c of cases) {
      it(`POST /${c.path}: without a key the retry is refused 403; with one it answers the first 200 again`, async () => {
        // today's behaviour without a key, kept: the retry is a second act, refused by the state machine
        const bare = await offerIn(fork(), gen, c.from, prov);
        expect((await post(c.path, c.body(bare.uuid))).statusCode).to.equal(200);
        expect((await post(c.path, c.body(bare.uuid))).statusCode).to.equal(403);

        const offer = await offerIn(fork(), gen, c.from, prov);
        const key = randomUUID();
        const first = await post(c.path, c.body(offer.uuid), key);
        expect(first.statusCode).to.equal(200);
        expect(first.headers[REPLAYED_HEADER.toLowerCase()]).to.equal(undefined);
        const movedAt = await transitions(offer.uuid);
        const planned = await deliveries(offer.uuid);
        const retry = await post(c.path, c.body(offer.uuid), key);
        expect(retry.statusCode).to.equal(200);
        expect(retry.body).to.deep.equal(first.body);
        expect(retry.headers[REPLAYED_HEADER.toLowerCase()]).to.equal('true');
        expect((await fork().findOneOrFail(Offer, offer.uuid)).state).to.equal(c.to);
        expect(await transitions(offer.uuid)).to.equal(movedAt);
        expect(await deliveries(offer.uuid)).to.equal(planned);
      });
    }

    it('POST /add-address: a retry with the key does not append the stop twice', async () => {
      const offer = await offerIn(fork(), gen, 'ASIGNADA', prov);
      const key = randomUUID();
      const body = { uuid: offer.uuid, latitud: 4.61, longitud: -74.07, puntoReferencia: 'Portería' };
      const first = await post('add-address', body, key);
      expect(first.statusCode).to.equal(200);
      const retry = await post('add-address', body, key);
      expect(retry.statusCode).to.equal(200);
      expect(retry.body).to.deep.equal(first.body);
      expect((await fork().findOneOrFail(Offer, offer.uuid)).stops).to.have.length(1);
      // another key is another act
      expect((await post('add-address', body, randomUUID())).statusCode).to.equal(200);
      expect((await fork().findOneOrFail(Offer, offer.uuid)).stops).to.have.length(2);
    });

    it('PUT /aceptacion (a central, data envelope): the retry answers the first 200, recorded once', async () => {
      const central = await makeResponder(fork(), { name: 'Grúas Clave' });
      const created = await post('oferta', { uuid: randomUUID(), tipoServicio: '1', latitudOrigen: 4.6533, longitudOrigen: -74.0836, fechaCita: '' });
      expect(created.statusCode).to.equal(200);
      const [offer] = await fork().find(Offer, { generator: gen.user.id }, { orderBy: { createdAt: 'desc' }, limit: 1 });
      await distributeTo(fork(), offer.uuid, central);
      const key = randomUUID();
      const body = { id: offer.uuid, dniPrestador: central.central.nit, dniTecnico: central.technician.dni, tiempoLlegadaSitio: 15 };
      const put = () => app.client.put('api/v3/aceptacion', { headers: { 'x-apikey': central.key, 'idempotency-key': key }, json: body });
      const first = await put();
      expect(first.statusCode, JSON.stringify(first.body)).to.equal(200);
      expect(first.body).to.deep.equal({ status: true, data: ACCEPTANCE_MESSAGES.recorded });
      const retry = await put();
      expect(retry.statusCode).to.equal(200);
      expect(retry.body).to.deep.equal(first.body);
      expect(await fork().count(OfferResponse, { offer: offer.uuid })).to.equal(1);
      const other = await app.client.put('api/v3/aceptacion', { headers: { 'x-apikey': central.key, 'idempotency-key': key }, json: { ...body, tiempoLlegadaSitio: 16 } });
      expect(other.statusCode).to.equal(400);
      expect(other.body).to.deep.equal({ status: false, data: IDEMPOTENCY_MESSAGES.otherBody });
    });
  });

  it('the same key with another body: 400 "IDEMPOTENCY-KEY YA USADA CON OTRO CUERPO" in the route’s envelope, nothing done', async () => {
    const a = await offerIn(fork(), gen, 'ASIGNADA', prov);
    const b = await offerIn(fork(), gen, 'ASIGNADA', prov);
    const key = randomUUID();
    expect((await post('cancelacion', { uuid: a.uuid }, key)).statusCode).to.equal(200);
    const res = await post('cancelacion', { uuid: b.uuid }, key);
    expect(res.statusCode).to.equal(400);
    expect(res.body).to.deep.equal({ status: false, msg: IDEMPOTENCY_MESSAGES.otherBody });
    expect((await fork().findOneOrFail(Offer, b.uuid)).state).to.equal('ASIGNADA');
    // the same key on another operation is another request too
    const elsewhere = await post('finalize', { uuid: a.uuid }, key);
    expect(elsewhere.statusCode).to.equal(400);
    expect(elsewhere.body).to.deep.equal({ status: false, msg: IDEMPOTENCY_MESSAGES.otherBody });
  });

  it('the same body with its fields in another order is the same request', async () => {
    const offer = await offerIn(fork(), gen, 'ASIGNADA', prov);
    const key = randomUUID();
    const first = await post('add-address', { uuid: offer.uuid, latitud: 4.6, longitud: -74.1 }, key);
    const retry = await post('add-address', { longitud: -74.1, latitud: 4.6, uuid: offer.uuid }, key);
    expect(retry.statusCode).to.equal(200);
    expect(retry.body).to.deep.equal(first.body);
    expect((await fork().findOneOrFail(Offer, offer.uuid)).stops).to.have.length(1);
  });

  it('a body nested thousands deep with a key is hashed without overflowing the stack: the route’s own answer, never a 500', async () => {
    const offer = await offerIn(fork(), gen, 'ASIGNADA', prov);
    // written as text: the client's own JSON.stringify would overflow first
    const depth = 20000;
    const body = `{"uuid":"${offer.uuid}","latitud":4.6,"longitud":-74.1,"extra":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
    const res = await app.client.post('api/v3/add-address', {
      headers: { authorization: gen.auth, 'idempotency-key': randomUUID(), 'content-type': 'application/json' },
      body,
    });
    expect(res.statusCode).to.be.within(200, 499);
  });

  it('keys are per caller: another generator’s same key is its own', async () => {
    const mine = await offerIn(fork(), gen, 'ASIGNADA', prov);
    const theirs = await offerIn(fork(), other, 'ASIGNADA', prov);
    const key = randomUUID();
    expect((await post('cancelacion', { uuid: mine.uuid }, key)).statusCode).to.equal(200);
    const res = await post('cancelacion', { uuid: theirs.uuid }, key, other.auth);
    expect(res.statusCode).to.equal(200);
    expect((await fork().findOneOrFail(Offer, theirs.uuid)).state).to.equal('CANCELADA');
  });

  for (const [what, value] of [
    ['256 characters', 'k'.repeat(256)],
    ['a space', 'two words'],
    ['a tab', 'a\tb'],
    ['a non-ASCII character', Buffer.from('clavé', 'latin1').toString('latin1')],
  ] as const) {
    it(`a key with ${what}: 400 in the route’s envelope, nothing done`, async () => {
      const offer = await offerIn(fork(), gen, 'ASIGNADA', prov);
      const res = await post('cancelacion', { uuid: offer.uuid }, value);
      expect(res.statusCode).to.equal(400);
      expect(res.body).to.deep.equal({ status: false, msg: IDEMPOTENCY_MESSAGES.invalid });
      expect((await fork().findOneOrFail(Offer, offer.uuid)).state).to.equal('ASIGNADA');
      const keyed = await app.client.put('api/v3/aceptacion', { headers: { 'x-apikey': prov.apiKey, 'idempotency-key': value }, json: {} });
      expect(keyed.statusCode).to.equal(400);
      expect(keyed.body).to.deep.equal({ status: false, data: IDEMPOTENCY_MESSAGES.invalid });
    });
  }

  it('255 visible characters are a key', async () => {
    const offer = await offerIn(fork(), gen, 'ASIGNADA', prov);
    const key = `${'~'.repeat(218)}!${randomUUID()}`;
    expect(key).to.have.length(255);
    expect((await post('cancelacion', { uuid: offer.uuid }, key)).statusCode).to.equal(200);
    expect((await post('cancelacion', { uuid: offer.uuid }, key)).statusCode).to.equal(200);
  });

  it('two requests at once with one key: one acts, the other gets 409 with Retry-After; then the first answer', async () => {
    const offer = await offerIn(fork(), gen, 'ASIGNADA', prov);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const restore = stubMethod(app.rt.geocoder, 'geocode', async (): Promise<GeocodeResult | null> => {
      calls++;
      await gate;
      return { lat: 4.7, lng: -74.05, ciudad: 'Bogotá', departamento: 'Cundinamarca' } as GeocodeResult;
    });
    try {
      const key = randomUUID();
      const body = { uuid: offer.uuid, direccion: 'Avenida Siempre Viva 742' };
      const first = post('add-address', body, key);
      await waitFor(() => calls === 1, 5000, 'the first request to be acting');
      const second = await post('add-address', body, key);
      expect(second.statusCode).to.equal(409);
      expect(second.body).to.deep.equal({ status: false, msg: IDEMPOTENCY_MESSAGES.inFlight });
      expect(second.headers['retry-after']).to.equal('1');
      release();
      const done = await first;
      expect(done.statusCode).to.equal(200);
      const third = await post('add-address', body, key);
      expect(third.statusCode).to.equal(200);
      expect(third.body).to.deep.equal(done.body);
      expect(calls).to.equal(1);
      expect((await fork().findOneOrFail(Offer, offer.uuid)).stops).to.have.length(1);
    } finally {
      restore();
    }
  });

  it('an answer that did not act (a 503) is not kept: the retry with the key acts', async () => {
    const offer = await offerIn(fork(), gen, 'ASIGNADA', prov);
    const key = randomUUID();
    const body = { uuid: offer.uuid, direccion: 'Calle Falsa 123' };
    const restore = stubMethod(app.rt.geocoder, 'geocode', async (): Promise<GeocodeResult | null> => {
      throw new GeocoderError('down for the test');
    });
    try {
      const failed = await post('add-address', body, key);
      expect(failed.statusCode).to.equal(503);
      expect(bodyOf(failed).msg).to.equal(GEOCODER_UNAVAILABLE);
    } finally {
      restore();
    }
    const restore2 = stubMethod(app.rt.geocoder, 'geocode', async () => ({ lat: 4.7, lng: -74.05, ciudad: 'Bogotá', departamento: 'X' }) as GeocodeResult);
    try {
      const retry = await post('add-address', body, key);
      expect(retry.statusCode).to.equal(200);
      expect((await fork().findOneOrFail(Offer, offer.uuid)).stops).to.have.length(1);
    } finally {
      restore2();
    }
  });

  it('a refusal that was answered (403) is kept: the retry gets it again', async () => {
    const offer = await offerIn(fork(), gen, 'FINALIZADA', prov);
    const key = randomUUID();
    const first = await post('cancelacion', { uuid: offer.uuid }, key);
    expect(first.statusCode).to.equal(403);
    const retry = await post('cancelacion', { uuid: offer.uuid }, key);
    expect(retry.statusCode).to.equal(403);
    expect(retry.body).to.deep.equal(first.body);
    expect(retry.headers[REPLAYED_HEADER.toLowerCase()]).to.equal('true');
  });

  it('lives in PostgreSQL: after Redis loses every key of the service, the retry still answers the first answer', async () => {
    const offer = await offerIn(fork(), gen, 'ACEPTADA', prov);
    const key = randomUUID();
    const first = await post('asignacion', { uuid: offer.uuid }, key);
    expect(first.statusCode).to.equal(200);
    const keys = await app.rt.redis.keys(`${app.rt.config.queuePrefix}*`);
    if (keys.length) await app.rt.redis.del(...keys);
    const retry = await post('asignacion', { uuid: offer.uuid }, key);
    expect(retry.statusCode).to.equal(200);
    expect(retry.body).to.deep.equal(first.body);
    expect(await transitions(offer.uuid)).to.equal(1);
    expect(await keyRows(key)).to.equal('1');
  });

  describe('a claim whose process died (RET-3, RET-4)', () => {
    const caller = () => ({ apiUser: gen.user });
    const claimFor = (op: string, key: string, input: unknown) =>
      beginIdempotent(app.rt, OPERATIONS.find((o) => o.operationId === op)!, caller(), key, input);
    const expireLease = (key: string) => fork().execute(`update idempotency_key set locked_until = now() - interval '1 second' where key = ?`, [key]);

    it('is marked acted in the act’s own transaction: a rolled-back act leaves it unmarked', async () => {
      const key = randomUUID();
      const begun = await claimFor('cancelService', key, { body: { uuid: 'x' }, params: {} });
      expect(begun.kind).to.equal('claimed');
      if (begun.kind !== 'claimed') return;
      await begun.claim
        .run(() =>
          app.rt.orm.em.fork().transactional(async (em) => {
            await em.execute('select 1');
            throw new Error('rolled back');
          }),
        )
        .catch(() => undefined);
      const [row] = await fork().execute<Array<{ acted: boolean }>>(`select acted_at is not null as acted from idempotency_key where key = ?`, [key]);
      expect(row.acted).to.equal(false);
      await begun.claim.run(() => app.rt.orm.em.fork().transactional(async (em) => em.execute('select 1')));
      const [after] = await fork().execute<Array<{ acted: boolean }>>(`select acted_at is not null as acted from idempotency_key where key = ?`, [key]);
      expect(after.acted).to.equal(true);
    });

    it('never acted and its lease over: the retry takes it over and acts', async () => {
      const offer = await offerIn(fork(), gen, 'ASIGNADA', prov);
      const key = randomUUID();
      const body = { uuid: offer.uuid };
      const begun = await claimFor('cancelService', key, { body, params: {} });
      expect(begun.kind).to.equal('claimed');
      const busy = await post('cancelacion', body, key);
      expect(busy.statusCode).to.equal(409);
      await expireLease(key);
      const retry = await post('cancelacion', body, key);
      expect(retry.statusCode).to.equal(200);
      expect((await fork().findOneOrFail(Offer, offer.uuid)).state).to.equal('CANCELADA');
    });

    it('acted but died before storing its answer: the retry does not act again (409, the answer lost)', async () => {
      const offer = await offerIn(fork(), gen, 'ASIGNADA', prov);
      const key = randomUUID();
      const body = { uuid: offer.uuid };
      const begun = await claimFor('cancelService', key, { body, params: {} });
      if (begun.kind !== 'claimed') throw new Error('not claimed');
      // the act commits (the offer moves), then the process "dies": settle never runs
      const acted = await begun.claim.run(() => invoke(app.rt, 'cancelService', caller(), body));
      expect(acted.status).to.equal(200);
      await expireLease(key);
      const movedAt = await transitions(offer.uuid);
      const retry = await post('cancelacion', body, key);
      expect(retry.statusCode).to.equal(409);
      expect(retry.body).to.deep.equal({ status: false, msg: IDEMPOTENCY_MESSAGES.answerLost });
      expect(await transitions(offer.uuid)).to.equal(movedAt);
    });
  });

  it('keys older than 24 hours are pruned by the retention job, and a key past 24 hours acts again', async () => {
    const offer = await offerIn(fork(), gen, 'ASIGNADA', prov);
    const key = randomUUID();
    const body = { uuid: offer.uuid, latitud: 4.6, longitud: -74.1 };
    expect((await post('add-address', body, key)).statusCode).to.equal(200);
    await fork().execute(`update idempotency_key set created_at = now() - interval '25 hours' where key = ?`, [key]);
    expect((await post('add-address', body, key)).statusCode).to.equal(200);
    expect((await fork().findOneOrFail(Offer, offer.uuid)).stops).to.have.length(2);
    await fork().execute(`update idempotency_key set created_at = now() - interval '25 hours' where key = ?`, [key]);
    expect(await pruneIdempotencyKeys(fork())).to.be.at.least(1);
    expect(await keyRows(key)).to.equal('0');
  });

  it('is documented on every idempotent operation: the reusable header parameter and the 409', () => {
    const doc = openApiDocument();
    expect(doc.components.parameters.IdempotencyKey).to.include({ name: 'Idempotency-Key', in: 'header', required: false });
    const idempotent = OPERATIONS.filter(isIdempotent);
    expect(idempotent.map((o) => o.operationId)).to.include.members([
      'createOffer',
      'acceptOffer',
      'confirmAssignment',
      'withdrawOffer',
      'cancelService',
      'addAddress',
      'assignDirectly',
      'reportProgress',
      'updateTechnicianPosition',
      'finalizeService',
      'changeTechnician',
      'issueTechnicianToken',
    ]);
    for (const op of OPERATIONS) {
      const o = doc.paths[op.path][op.method] as { parameters?: Array<Record<string, unknown>>; responses: Record<string, unknown> };
      const refers = (o.parameters ?? []).some((p) => p.$ref === '#/components/parameters/IdempotencyKey');
      expect(refers, op.operationId).to.equal(isIdempotent(op));
      if (isIdempotent(op)) expect(o.responses, op.operationId).to.have.property('409');
    }
  });
});
