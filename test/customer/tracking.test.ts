/**
 * The customer's side, part one (issue 9): the D13 integrity check, the
 * customer's phone on the offer (D16), tracking codes by SMS (outbox), tokens,
 * the public follow-up and the survey (D14).
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Offer, Technician } from '../../src/db/entities/index.js';
import { offerFields } from '../../src/domain/distribution/payload.js';
import { CODE_TTL_MS } from '../../src/domain/tracking/codes.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { integrityHeaders, signedCall } from '../helpers/integrity.js';
import { nonceKey } from '../../src/http/middleware/integrity.js';
import { bodyOf, offerIn, startOps, type Generator, type Provider } from '../helpers/ops.js';
import { waitFor } from '../helpers/wait.js';

const SECRET = 'integrity-secret-of-the-tests-0123456789';
const PHONE = '+57 300-123 4567';

describe('customer tracking (issue 9: D13, D14, D16)', () => {
  let app: TestApp;
  let second: TestApp;
  let gen: Generator;
  let prov: Provider;
  const env = { INTEGRITY_SECRET: SECRET };

  before(async () => {
    const suite = await startOps({ env, workers: true });
    ({ app, gen, prov } = suite);
    second = await startApp({ env });
  });
  after(async () => {
    await second.close();
    await app.close();
  });

  const em = () => app.rt.orm.em.fork();
  const call = (path: string, json?: unknown, a: TestApp = app) => signedCall(a.client, SECRET, { path: `api/v3/${path}`, json, method: json === undefined ? 'GET' : 'POST' });
  const assigned = (o: Partial<Offer> = {}) =>
    offerIn(em(), gen, 'ASIGNADA', prov, { telefonoCliente: '+573001234567', codigoServicio: `SV-${randomUUID().replace(/[^A-HJKMNP-TV-Z2-9]/gi, '').toUpperCase().slice(0, 6).padEnd(6, 'X')}`, ...o });
  /** The newest code SMS sent to the phone, read from the outbox table. */
  const smsCode = async (to = '+573001234567'): Promise<string> => {
    const row = await waitFor(async () => {
      const [r] = await em().execute<Array<{ body: string; state: string }>>(`select body, state from sms_message where to_phone = ? order by created_at desc limit 1`, [to]);
      return r?.state === 'sent' ? r : undefined;
    });
    return /código de seguimiento es ([0-9]{6})/.exec(row.body)![1];
  };
  const resetPhone = () => em().execute(`delete from tracking_request; delete from sms_message; delete from tracking_code`);

  describe('integrity (D13)', () => {
    const target = '/api/v3/tracking/track/public';
    const body = JSON.stringify({ token: 'x'.repeat(43) });
    const raw = (headers: Record<string, string>) =>
      app.client.post(target.slice(1), { body, headers: { 'content-type': 'application/json', ...headers } });

    it('refuses missing headers, an old or future timestamp, a bad signature and a wrong secret with 401 {status, msg, timestamp}', async () => {
      const good = integrityHeaders({ secret: SECRET, method: 'POST', target, body });
      const cases: Array<[Record<string, string>, string]> = [
        [{}, 'FALTAN LOS ENCABEZADOS'],
        [{ ...good, 'x-nonce': '' }, 'FALTAN LOS ENCABEZADOS'],
        // well outside the 300 s: with +301 a request reaching the server in the next second was inside it (seen flaking)
        [integrityHeaders({ secret: SECRET, method: 'POST', target, body, timestamp: Math.floor(Date.now() / 1000) - 330 }), 'FUERA DE LA VENTANA'],
        [integrityHeaders({ secret: SECRET, method: 'POST', target, body, timestamp: Math.floor(Date.now() / 1000) + 330 }), 'FUERA DE LA VENTANA'],
        [{ ...good, 'x-signature': good['x-signature'].replace(/^./, (c) => (c === 'a' ? 'b' : 'a')) }, 'FIRMA'],
        [integrityHeaders({ secret: 'another-secret-of-32-characters-or-more', method: 'POST', target, body }), 'FIRMA'],
        [integrityHeaders({ secret: SECRET, method: 'POST', target: '/api/v3/tracking/track', body }), 'FIRMA'],
        [{ ...good, 'x-nonce': 'n'.repeat(129) }, 'x-nonce'],
      ];
      for (const [headers, text] of cases) {
        const res = await raw(headers);
        expect(res.statusCode, text).to.equal(401);
        const b = bodyOf(res);
        expect(b.status).to.equal(false);
        expect(String(b.msg)).to.include(text);
        expect(b.timestamp).to.be.a('string');
      }
    });

    it('catches a replayed nonce on a second API process (nonces in Redis), and records a nonce only once its signature is right', async () => {
      const headers = integrityHeaders({ secret: SECRET, method: 'POST', target, body });
      const first = await raw(headers);
      expect(first.statusCode).to.equal(401);
      expect(bodyOf(first).msg).to.equal('EL TOKEN DE SEGUIMIENTO NO ES VÁLIDO O YA EXPIRÓ');
      const replay = await second.client.post(target.slice(1), { body, headers: { 'content-type': 'application/json', ...headers } });
      expect(replay.statusCode).to.equal(401);
      expect(bodyOf(replay).msg).to.equal('ESTA SOLICITUD YA FUE RECIBIDA (NONCE REPETIDO)');
      // a wrong signature does not burn the nonce
      const nonce = randomUUID();
      const bad = await raw({ ...integrityHeaders({ secret: 'wrong-secret-wrong-secret-wrong-secret', method: 'POST', target, body, nonce }) });
      expect(bodyOf(bad).msg).to.equal('LA FIRMA DE INTEGRIDAD NO ES VÁLIDA');
      const good = await raw(integrityHeaders({ secret: SECRET, method: 'POST', target, body, nonce }));
      expect(bodyOf(good).msg).to.equal('EL TOKEN DE SEGUIMIENTO NO ES VÁLIDO O YA EXPIRÓ');
    });

    it('keeps a nonce as long as its timestamp is accepted: a timestamp in the future cannot be replayed once the nonce would have expired', async () => {
      const future = Math.floor(Date.now() / 1000) + 290;
      const nonce = randomUUID();
      const first = await raw(integrityHeaders({ secret: SECRET, method: 'POST', target, body, timestamp: future, nonce }));
      expect(bodyOf(first).msg).to.equal('EL TOKEN DE SEGUIMIENTO NO ES VÁLIDO O YA EXPIRÓ');
      // The signed request stays acceptable until 300 s after its timestamp: the nonce must outlive that.
      const ttl = await app.rt.redis.ttl(nonceKey(app.rt.config.queuePrefix, nonce));
      expect(ttl).to.be.at.least(future + 300 - Math.floor(Date.now() / 1000));
      expect(ttl).to.be.at.most(2 * 300 + 2);
    });

    it('signs the query string and an empty body', async () => {
      const offer = await assigned();
      const path = `api/v3/chat/${offer.codigoServicio}/stats?x=1`;
      const signed = integrityHeaders({ secret: SECRET, method: 'GET', target: `/${path}`, body: '' });
      const ok = await app.client.get(path, { headers: { ...signed, authorization: gen.auth } });
      expect(ok.statusCode).to.equal(200);
      const withoutQuery = integrityHeaders({ secret: SECRET, method: 'GET', target: `/api/v3/chat/${offer.codigoServicio}/stats`, body: '' });
      const refused = await app.client.get(path, { headers: { ...withoutQuery, authorization: gen.auth } });
      expect(refused.statusCode).to.equal(401);
    });
  });

  describe('the customer phone (D16)', () => {
    it('is validated, stored normalised, and not in what centrals and technicians receive before assignment', async () => {
      const uuid = randomUUID();
      const json = { uuid, tipoServicio: '1', latitudOrigen: 4.65, longitudOrigen: -74.08, telefonoCliente: PHONE };
      const res = await app.client.post('api/v3/oferta', { headers: { authorization: gen.auth }, json });
      expect(res.statusCode).to.equal(200);
      const offer = await em().findOneOrFail(Offer, uuid);
      expect(offer.telefonoCliente).to.equal('+573001234567');
      expect(JSON.stringify(offerFields(offer))).to.not.include('3001234567');
      for (const bad of ['12345', '+57 300 123 4567 8901 2', 'llámame', '300--1234567']) {
        const r = await app.client.post('api/v3/oferta', { headers: { authorization: gen.auth }, json: { ...json, uuid: randomUUID(), telefonoCliente: bad } });
        expect(r.statusCode, bad).to.equal(400);
        expect(String(bodyOf(r).msg)).to.include("'telefonoCliente'");
      }
    });
  });

  describe('codes by SMS and tokens (D14)', () => {
    beforeEach(resetPhone);

    it('answers the same whether or not the phone matches; only a match sends a code (outbox), which gives a token and the follow-up', async () => {
      const offer = await assigned();
      const wrong = await call('tracking/requestCode', { expediente: offer.codigoServicio, telefono: '3119999999' });
      const unknown = await call('tracking/requestCode', { expediente: 'SV-ZZZZZZ', telefono: '3001234567' });
      const right = await call('tracking/requestCode', { expediente: offer.codigoServicio!.toLowerCase(), telefono: '300 123 4567' });
      for (const r of [wrong, unknown, right]) expect([r.statusCode, bodyOf(r)]).to.deep.equal([200, bodyOf(right)]);
      const code = await smsCode();
      const [sms] = await em().execute<Array<{ body: string; provider: string }>>(`select body, provider from sms_message`);
      // D16's text: the insurer's name, the code, its validity and the link that opens the page with the expediente
      const link = `http://127.0.0.1:${app.rt.config.port}/seguimiento?expediente=${offer.codigoServicio}`;
      expect(sms).to.deep.equal({ body: `Aseguradora Andina S.A.: su código de seguimiento es ${code} (válido 10 minutos). ${link}`, provider: 'outbox' });
      const [stored] = await em().execute<Array<{ code_hash: string }>>(`select code_hash from tracking_code where offer_uuid = ?`, [offer.uuid]);
      expect(stored.code_hash).to.not.include(code);

      const tracked = await call('tracking/track', { expediente: offer.uuid, code });
      expect(tracked.statusCode).to.equal(200);
      const data = bodyOf(tracked).data as { token: string; expiresAt: string; service: Record<string, unknown> };
      expect(new Date(data.expiresAt).getTime()).to.be.greaterThan(Date.now() + 6 * 86_400_000);
      expect(data.service).to.include({ estado: 'ASIGNADA', codigoServicio: offer.codigoServicio });
      expect(data.service.tecnico).to.deep.equal({ nombre: prov.technician.names, telefono: prov.technician.phone ?? null, identificador: prov.technician.identifier ?? null });
      expect(data.service.central).to.deep.equal({ nombre: prov.central.name });

      const again = await call('tracking/track', { expediente: offer.uuid, code });
      expect(again.statusCode, 'a code is spent once').to.equal(401);

      // D24: the public follow-up takes a share link, never the customer's own token
      const full = await call('tracking/track/public', { token: data.token });
      expect([full.statusCode, bodyOf(full).msg]).to.deep.equal([401, 'ESTE TOKEN NO ES UN ENLACE PÚBLICO; OBTENGA UNO CON POST /tracking/share']);
      const share = ((bodyOf(await call('tracking/share', { token: data.token })).data as { token: string })).token;
      const pub = await call('tracking/track/public', { token: share });
      expect(pub.statusCode).to.equal(200);
      const service = (bodyOf(pub).data as { service: Record<string, unknown> }).service;
      expect(service.tecnico).to.equal(null);
      expect(service, 'the public form has no plate').to.not.have.property('placa');
      expect(service.origen).to.deep.equal({ ciudad: 'Bogotá', departamento: 'Cundinamarca' });
      expect(JSON.stringify(service)).to.not.include('telefono');
    });

    it('a code dies after 5 wrong tries and after 10 minutes; a wrong code says nothing about the expediente', async () => {
      const offer = await assigned();
      await call('tracking/requestCode', { expediente: offer.codigoServicio, telefono: PHONE });
      const code = await smsCode();
      const wrongCode = code === '000000' ? '111111' : '000000';
      for (let i = 0; i < 5; i++) {
        const r = await call('tracking/track', { expediente: offer.codigoServicio, code: wrongCode });
        expect([r.statusCode, bodyOf(r).msg]).to.deep.equal([401, 'EL CÓDIGO NO ES VÁLIDO O YA EXPIRÓ; SOLICITE UNO NUEVO']);
      }
      const dead = await call('tracking/track', { expediente: offer.codigoServicio, code });
      expect(dead.statusCode).to.equal(401);
      const unknown = await call('tracking/track', { expediente: 'SV-QQQQQQ', code });
      expect([unknown.statusCode, bodyOf(unknown)]).to.deep.equal([401, bodyOf(dead)]);

      await call('tracking/requestCode', { expediente: offer.codigoServicio, telefono: PHONE });
      const late = await smsCode();
      await em().execute(`update tracking_code set expires_at = now() - interval '1 second' where offer_uuid = ?`, [offer.uuid]);
      expect((await call('tracking/track', { expediente: offer.codigoServicio, code: late })).statusCode).to.equal(401);
      expect(CODE_TTL_MS).to.equal(600_000);
    });

    it('allows 3 requests per expediente in 10 minutes, matching or not (then 429), and caps the codes one phone gets a day', async () => {
      const offer = await assigned();
      for (let i = 0; i < 3; i++) expect((await call('tracking/requestCode', { expediente: offer.uuid, telefono: '3110000000' })).statusCode).to.equal(200);
      const limited = await call('tracking/requestCode', { expediente: offer.uuid, telefono: PHONE });
      expect(limited.statusCode).to.equal(429);
      expect(limited.headers['retry-after']).to.equal('600');
      expect(bodyOf(limited).msg).to.equal('SE HAN SOLICITADO DEMASIADOS CÓDIGOS PARA ESTE EXPEDIENTE; INTENTE DE NUEVO EN 10 MINUTOS');

      // the daily cap per phone (10 by default) across many expedientes of the same phone
      await em().execute(
        `insert into tracking_request (expediente, phone, matched, at) select 'X' || g, '+573001234567', true, now() - interval '1 hour' from generate_series(1, 10) g`,
      );
      const other = await assigned();
      const capped = await call('tracking/requestCode', { expediente: other.codigoServicio, telefono: PHONE });
      expect(capped.statusCode).to.equal(200);
      const [{ n }] = await em().execute<Array<{ n: string }>>(`select count(*) as n from sms_message where offer_uuid = ?`, [other.uuid]);
      expect(Number(n)).to.equal(0);
    });

    it('the token dies 24 hours after the service ends; an unknown token is 401', async () => {
      const offer = await assigned();
      await call('tracking/requestCode', { expediente: offer.uuid, telefono: PHONE });
      const token = ((bodyOf(await call('tracking/track', { expediente: offer.uuid, code: await smsCode() })).data as { token: string })).token;
      const share = ((bodyOf(await call('tracking/share', { token })).data as { token: string })).token;
      expect((await call('tracking/track/public', { token: share })).statusCode).to.equal(200);
      await em().execute(`insert into offer_transition (offer_uuid, from_state, to_state, actor, at) values (?, 'ASIGNADA', 'FINALIZADA', 'test', now() - interval '25 hours')`, [offer.uuid]);
      expect((await call('tracking/track/public', { token: share })).statusCode).to.equal(401);
      expect((await call('tracking/share', { token })).statusCode).to.equal(401);
      expect((await call('tracking/track/public', { token: 'A'.repeat(43) })).statusCode).to.equal(401);
    });
  });

  describe('the survey (D14)', () => {
    beforeEach(resetPhone);

    it('is refused before FINALIZADA (403), accepted once (then 409), validated first (400), and averages into the technician rate', async () => {
      await em().execute(`update technician set rate = 4, initial_rate = null where id = ?`, [prov.technician.id]);
      await em().execute(`delete from service_survey`);
      const offer = await assigned();
      await call('tracking/requestCode', { expediente: offer.uuid, telefono: PHONE });
      const token = ((bodyOf(await call('tracking/track', { expediente: offer.uuid, code: await smsCode() })).data as { token: string })).token;
      expect((await call('tracking/surveyresponse', { token, rating: 6 })).statusCode).to.equal(400);
      expect((await call('tracking/surveyresponse', { token, rating: 2.5 })).statusCode).to.equal(400);
      expect((await call('tracking/surveyresponse', { token, rating: 5, comment: 'x'.repeat(1001) })).statusCode).to.equal(400);
      const early = await call('tracking/surveyresponse', { token, rating: 5 });
      expect([early.statusCode, bodyOf(early).msg]).to.deep.equal([403, 'LA ENCUESTA SE PUEDE RESPONDER CUANDO EL SERVICIO ESTÉ FINALIZADO (ESTADO ACTUAL: ASIGNADA)']);
      await em().execute(`update offer set state = 'FINALIZADA' where uuid = ?`, [offer.uuid]);
      const done = await call('tracking/surveyresponse', { token, rating: 1, comment: 'tardó' });
      expect([done.statusCode, bodyOf(done).msg]).to.deep.equal([200, 'GRACIAS POR RESPONDER LA ENCUESTA']);
      expect((await call('tracking/surveyresponse', { token, rating: 5 })).statusCode).to.equal(409);
      let tech = await em().findOneOrFail(Technician, prov.technician.id);
      expect([tech.rate, tech.initialRate]).to.deep.equal([2.5, 4]);
      // a second service's survey: (4 + 1 + 4) / 3
      const next = await assigned({ state: 'FINALIZADA' });
      await call('tracking/requestCode', { expediente: next.uuid, telefono: PHONE });
      const t2 = ((bodyOf(await call('tracking/track', { expediente: next.uuid, code: await smsCode() })).data as { token: string })).token;
      expect((await call('tracking/surveyresponse', { token: t2, rating: 4 })).statusCode).to.equal(200);
      tech = await em().findOneOrFail(Technician, prov.technician.id);
      expect(tech.rate).to.equal(3);
    });
  });
});
