/**
 * The customer's side, part two (issue 9): the chat of a service (D14) over
 * HTTP and live on sockets, the customer's socket with its tracking token,
 * and technicians busy while assigned (D16).
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { issueTrackingToken } from '../../src/domain/tracking/tokens.js';
import { findCandidates } from '../../src/domain/distribution/candidates.js';
import { BOGOTA, makeTechnician } from '../helpers/factories.js';
import type { TestApp } from '../helpers/harness.js';
import { signedCall } from '../helpers/integrity.js';
import { bodyOf, offerIn, startOps, type Generator, type Provider } from '../helpers/ops.js';
import { connect, makeOperatorToken, refusal, wsUrl } from '../helpers/sockets.js';
import type { Offer } from '../../src/db/entities/index.js';

const SECRET = 'integrity-secret-of-the-tests-0123456789';
type Body = Record<string, unknown>;

describe('service chat and the customer socket (issue 9: D14, D16)', () => {
  let app: TestApp;
  let gen: Generator;
  let other: Generator;
  let prov: Provider;
  let operatorJwt: string;
  let seq = 0;

  before(async () => {
    const suite = await startOps({ env: { INTEGRITY_SECRET: SECRET } });
    ({ app, gen, other, prov } = suite);
    operatorJwt = await makeOperatorToken(suite.em, app.rt.config.jwtSecret);
  });
  after(async () => app.close());

  const em = () => app.rt.orm.em.fork();
  const code = () => `SV-${'ABCDEFGHJK'[seq % 10]}${'MNPQRSTVWX'[Math.floor(seq / 10) % 10]}${'2345'[seq++ % 4]}Z9Y`;
  const service = (state: Offer['state'] = 'ASIGNADA', o: Partial<Offer> = {}) => offerIn(em(), gen, state, prov, { codigoServicio: code(), ...o });
  const tokenFor = async (offer: Offer) => (await issueTrackingToken(em(), offer)).token;
  const tech = () => ({ 'x-apikey': prov.apiKey, 'x-dni-tecnico': prov.technician.dni });
  const chat = (offer: Offer | string, path: string, headers: Record<string, string>, json?: unknown, method?: 'GET' | 'POST' | 'PUT') =>
    signedCall(app.client, SECRET, {
      path: `api/v3/chat/${typeof offer === 'string' ? offer : offer.codigoServicio}/${path}`,
      json,
      headers,
      method: method ?? (json === undefined ? 'GET' : 'POST'),
    });

  it('the customer and the technician write; history pages back with hasMore, oldest first within a page', async () => {
    const offer = await service();
    const customer = { authorization: `Bearer ${await tokenFor(offer)}` };
    const sent = await chat(offer, 'messages', customer, { texto: 'Hola, ¿cuánto falta? 🚗', clientId: 'c-1' });
    expect(sent.statusCode).to.equal(200);
    const message = (bodyOf(sent).data as { message: Body }).message;
    expect(message).to.include({ autor: 'cliente', texto: 'Hola, ¿cuánto falta? 🚗', clientId: 'c-1', leidoEn: null });
    const retry = await chat(offer, 'messages', customer, { texto: 'Hola, ¿cuánto falta? 🚗', clientId: 'c-1' });
    expect((bodyOf(retry).data as { message: Body }).message).to.deep.equal(message);
    const techSame = await chat(offer.uuid, 'messages', tech(), { texto: 'Diez minutos', clientId: 'c-1' });
    expect((bodyOf(techSame).data as { message: Body }).message).to.include({ autor: 'tecnico', texto: 'Diez minutos' });
    for (let i = 0; i < 3; i++) await chat(offer, 'messages', customer, { texto: `m${i}` });

    const newest = bodyOf(await chat(offer, 'messages?limit=2', customer)).data as { messages: Body[]; hasMore: boolean };
    expect(newest.messages.map((m) => m.texto)).to.deep.equal(['m1', 'm2']);
    expect(newest.hasMore).to.equal(true);
    const older = bodyOf(await chat(offer, `messages?limit=10&before=${newest.messages[0].id}`, { authorization: gen.auth })).data as { messages: Body[]; hasMore: boolean };
    expect(older.messages.map((m) => m.texto)).to.deep.equal(['Hola, ¿cuánto falta? 🚗', 'Diez minutos', 'm0']);
    expect(older.hasMore).to.equal(false);

    const stats = bodyOf(await chat(offer, 'stats', { authorization: `Bearer ${operatorJwt}` })).data as Body;
    expect(stats).to.include({ mensajes: 5, deCliente: 4, deTecnico: 1 });
    expect(stats.primeraRespuestaSegundos).to.be.a('number');
  });

  it('read marks and unread counters for both sides', async () => {
    const offer = await service();
    const customer = { authorization: `Bearer ${await tokenFor(offer)}` };
    const ids: number[] = [];
    for (const t of ['a', 'b', 'c']) ids.push(((bodyOf(await chat(offer, 'messages', tech(), { texto: t })).data as { message: { id: number } }).message.id));
    await chat(offer, 'messages', customer, { texto: 'ok' });
    expect(bodyOf(await chat(offer, 'unread', customer)).data).to.deep.equal({ cliente: 3, tecnico: 1 });
    const read = await chat(offer, 'read', customer, { hasta: ids[1] }, 'PUT');
    expect(bodyOf(read).data).to.deep.equal({ unread: 1 });
    expect((await chat(offer, 'read', customer, { hasta: 999999999 }, 'PUT')).statusCode).to.equal(404);
    await chat(offer, 'read', tech(), {}, 'PUT');
    expect(bodyOf(await chat(offer, 'unread', { authorization: gen.auth })).data).to.deep.equal({ cliente: 1, tecnico: 0 });
  });

  it('refuses what D14 refuses: strangers 404 like unknown, readers 403, closed periods 403, bad bodies 400, a flood 429', async () => {
    const offer = await service();
    const customer = { authorization: `Bearer ${await tokenFor(offer)}` };
    const unknown = await chat('SV-QQQQQQ', 'messages', customer);
    const otherService = await service();
    const stranger = await chat(otherService, 'messages', customer);
    const otherGen = await chat(offer, 'messages', { authorization: other.auth });
    for (const r of [unknown, stranger, otherGen]) expect([r.statusCode, bodyOf(r)]).to.deep.equal([404, { status: false, msg: 'EXPEDIENTE NO ENCONTRADO' }]);
    const other_tech = await makeTechnician(em(), prov.central);
    expect((await chat(offer, 'messages', { 'x-apikey': prov.apiKey, 'x-dni-tecnico': other_tech.dni })).statusCode).to.equal(404);
    expect((await chat(offer, 'messages', { authorization: gen.auth }, { texto: 'hola' })).statusCode).to.equal(403);
    expect((await chat(offer, 'messages', { authorization: `Bearer ${operatorJwt}` }, { texto: 'hola' })).statusCode).to.equal(403);
    expect((await chat(offer, 'messages', customer, { texto: '' })).statusCode).to.equal(400);
    expect((await chat(offer, 'messages', customer, { texto: '   ' })).statusCode).to.equal(400);
    expect((await chat(offer, 'messages', customer, { texto: 'x'.repeat(2001) })).statusCode).to.equal(400);
    expect((await chat(offer, 'messages?limit=101', customer)).statusCode).to.equal(400);
    expect((await chat(offer, 'messages', {})).statusCode).to.equal(401);
    expect((await chat(offer, 'messages', { authorization: 'Bearer nope' })).statusCode).to.equal(401);

    const open = await offerIn(em(), gen, 'ACEPTADA', prov);
    const early = await chat(open.uuid, 'messages', { authorization: `Bearer ${await tokenFor(open)}` });
    expect(early.statusCode).to.equal(403);
    expect((await chat(open.uuid, 'messages', tech())).statusCode, 'no technician takes part before ASIGNADA').to.equal(404);

    const ended = await service('FINALIZADA');
    await em().execute(`insert into offer_transition (offer_uuid, from_state, to_state, actor, at) values (?, 'EN_SITIO', 'FINALIZADA', 'test', now() - interval '2 hours')`, [ended.uuid]);
    expect((await chat(ended, 'messages', tech(), { texto: 'gracias' })).statusCode, 'open 24 h after the end').to.equal(200);
    await em().execute(`update offer_transition set at = now() - interval '25 hours' where offer_uuid = ?`, [ended.uuid]);
    const closed = await chat(ended, 'messages', tech(), { texto: 'gracias' });
    expect([closed.statusCode, bodyOf(closed).msg]).to.deep.equal([403, 'EL CHAT DE ESTE SERVICIO ESTÁ CERRADO: TERMINÓ HACE MÁS DE 24 HORAS']);

    for (let i = 0; i < 30; i++) expect((await chat(offer, 'messages', tech(), { texto: `r${i}` })).statusCode).to.equal(200);
    const flood = await chat(offer, 'messages', tech(), { texto: 'uno más' });
    expect(flood.statusCode).to.equal(429);
    expect(Number(flood.headers['retry-after'])).to.be.within(1, 60);
    expect((await chat(offer, 'messages', customer, { texto: 'el cliente sigue' })).statusCode, 'per author').to.equal(200);
  });

  it('live: chat.message and chat.read reach the other side; the customer socket gets state changes and the position while EN_CAMINO', async () => {
    const offer = await service();
    const token = await tokenFor(offer);
    const customerSocket = await connect(wsUrl(app.url), { headers: { authorization: `Bearer ${token}` } });
    const techSocket = await connect(wsUrl(app.url), { headers: tech() });
    try {
      await chat(offer, 'messages', { authorization: `Bearer ${token}` }, { texto: 'estoy en la esquina' });
      const toTech = await techSocket.next('chat.message');
      expect((toTech.data as { message: Body }).message).to.include({ autor: 'cliente', texto: 'estoy en la esquina' });
      await chat(offer, 'messages', tech(), { texto: 'ya llego' });
      const toCustomer = await customerSocket.next('chat.message');
      expect((toCustomer.data as { message: Body; expediente: string })).to.include({ expediente: offer.codigoServicio });
      await chat(offer, 'read', tech(), {}, 'PUT');
      expect((await customerSocket.next('chat.read')).data).to.include({ lector: 'tecnico' });

      const moved = await app.client.put('api/v3/estado-servicio', { headers: { 'x-apikey': prov.apiKey }, json: { id: offer.uuid, estado: 'EN_CAMINO' } });
      expect(moved.statusCode).to.equal(200);
      expect((await customerSocket.next('offer.state', (f) => (f.data as Body).estado === 'EN_CAMINO')).data).to.include({ uuid: offer.uuid });
      await em().execute(`update technician set busy_offer_uuid = ? where id = ?`, [offer.uuid, prov.technician.id]);
      const pos = await app.client.put('api/v3/posicion-tecnico', { headers: { 'x-apikey': prov.apiKey }, json: { dniTecnico: prov.technician.dni, latitud: 4.66, longitud: -74.07 } });
      expect(pos.statusCode).to.equal(200);
      expect((await customerSocket.next('service.position')).data).to.include({ latitud: 4.66, longitud: -74.07 });
      expect(customerSocket.events('offer.response')).to.deep.equal([]);
    } finally {
      await customerSocket.close();
      await techSocket.close();
      await em().execute(`update technician set busy_offer_uuid = null where id = ?`, [prov.technician.id]);
    }
    const refused = await refusal(wsUrl(app.url), { headers: { authorization: `Bearer ${'B'.repeat(43)}` } });
    expect(refused.status).to.equal(401);
    // the customer page's cookie opens the socket too; a malformed one is just no credential
    const byCookie = await connect(wsUrl(app.url), { headers: { cookie: `seguimiento=${token}` }, origin: app.url });
    await byCookie.close();
    expect((await refusal(wsUrl(app.url), { headers: { cookie: 'seguimiento=%zz' }, origin: app.url })).status).to.equal(401);
  });

  it('a technician is busy from ASIGNADA until the service ends: no offers meanwhile (D16)', async () => {
    const busy = await makeTechnician(em(), prov.central, { position: BOGOTA });
    const query = { lat: BOGOTA.lat, lng: BOGOTA.lng, serviceTypeId: 1, radiusKm: 15, maxAgeS: 0, cap: 50 };
    const ids = async () => (await findCandidates(em(), query)).technicians.map((t) => t.technicianId);
    expect(await ids()).to.include(busy.id);
    const uuid = randomUUID();
    const direct = await app.client.post('api/v3/asignacion-directa', {
      headers: { authorization: gen.auth },
      json: { uuid, tipoServicio: '1', latitudOrigen: 4.65, longitudOrigen: -74.08, dniPrestador: prov.central.nit, dniTecnico: busy.dni },
    });
    expect(direct.statusCode).to.equal(200);
    expect(await ids()).to.not.include(busy.id);
    const done = await app.client.post('api/v3/finalize', { headers: { authorization: gen.auth }, json: { uuid } });
    expect(done.statusCode).to.equal(200);
    expect(await ids()).to.include(busy.id);
  });
});
