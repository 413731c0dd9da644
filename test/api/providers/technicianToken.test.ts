/**
 * A technician's own credential over HTTP (D20): POST /tecnicos/token, the
 * token on the technician's routes (position, progress, chat, its own work),
 * refused at once when revoked, never logged; the spec's key (+ x-dni-tecnico)
 * unchanged.
 */
import { expect } from 'chai';
import { AUTH_MESSAGES } from '../../../src/auth/credentials.js';
import { apiKeyHash } from '../../../src/auth/passwords.js';
import { TECHNICIAN_AUTH_MESSAGES } from '../../../src/auth/technician.js';
import { TECHNICIAN_TOKEN_MESSAGES, pruneTechnicianTokens } from '../../../src/auth/technicianToken.js';
import { Technician } from '../../../src/db/entities/index.js';
import { findCandidates } from '../../../src/domain/distribution/candidates.js';
import { expectKeyEnvelope } from '../../helpers/envelopes.js';
import { BOGOTA, makeTechnician } from '../../helpers/factories.js';
import type { TestApp } from '../../helpers/harness.js';
import { signedCall } from '../../helpers/integrity.js';
import { bodyOf, makeProvider, respond, startOps, type Generator, type Provider } from '../../helpers/ops.js';
import { bearer, issueToken, openOfferFor, serviceOf } from '../../helpers/technicians.js';

const SECRET = 'integrity-secret-of-the-tests-0123456789';
type Body = Record<string, unknown>;

describe('a technician’s own credential over HTTP (D20)', () => {
  let app: TestApp;
  let gen: Generator;
  let prov: Provider;
  let rival: Provider;
  const issued: string[] = [];

  before(async () => {
    ({ app, gen, prov } = await startOps({ env: { INTEGRITY_SECRET: SECRET } }));
    rival = await makeProvider(em(), { name: 'Grúas Rivales' });
  });
  after(async () => app.close());

  const em = () => app.rt.orm.em.fork();
  const token = async (p: Provider = prov, tech: Technician = p.technician) => {
    const t = await issueToken(app.client, p.apiKey, tech.dni);
    issued.push(t);
    return t;
  };
  const work = (headers: Record<string, string>) => app.client.get('api/v3/tecnicos/servicios', { headers });
  const chat = (code: string, headers: Record<string, string>, json?: unknown) =>
    signedCall(app.client, SECRET, { path: `api/v3/chat/${code}/messages`, json, headers, method: json === undefined ? 'GET' : 'POST' });

  it('issues a 12-hour token for one of the central’s ACTIVO technicians', async () => {
    const before = Date.now();
    const res = await app.client.post('api/v3/tecnicos/token', { headers: { 'x-apikey': prov.apiKey }, json: { dniTecnico: prov.technician.dni } });
    expect(res.statusCode).to.equal(200);
    const body = bodyOf(res) as { token: string; expiresAt: string };
    issued.push(body.token);
    expect(body.token).to.match(/^tec_[A-Za-z0-9_-]{43}$/);
    const ttl = Date.parse(body.expiresAt) - before;
    expect(ttl).to.be.within(12 * 3600 * 1000 - 5000, 12 * 3600 * 1000 + 5000);
    const [row] = await em().execute<Array<{ token_hash: string }>>('select token_hash from technician_token');
    expect(row.token_hash).to.match(/^[0-9a-f]{64}$/);
    expect(row.token_hash).to.not.equal(body.token);
  });

  it('refuses another central’s technician, an unknown one, an INACTIVO one, a missing document and a bad key, in the key envelope', async () => {
    const post = (headers: Record<string, string>, json: unknown) => app.client.post('api/v3/tecnicos/token', { headers, json });
    const other = await post({ 'x-apikey': prov.apiKey }, { dniTecnico: rival.technician.dni });
    expect(other.statusCode).to.equal(404);
    expectKeyEnvelope(other.body, TECHNICIAN_AUTH_MESSAGES.technicianUnknown);
    expect((await post({ 'x-apikey': prov.apiKey }, { dniTecnico: '000' })).statusCode).to.equal(404);
    const idle = await makeTechnician(em(), prov.central, { status: 'INACTIVO' });
    const inactive = await post({ 'x-apikey': prov.apiKey }, { dniTecnico: idle.dni });
    expect(inactive.statusCode).to.equal(403);
    expectKeyEnvelope(inactive.body, TECHNICIAN_TOKEN_MESSAGES.inactive);
    const missing = await post({ 'x-apikey': prov.apiKey }, {});
    expect(missing.statusCode).to.equal(400);
    expectKeyEnvelope(missing.body, "EL CAMPO 'dniTecnico' ES REQUERIDO");
    const bad = await post({ 'x-apikey': 'k'.repeat(40) }, { dniTecnico: prov.technician.dni });
    expect(bad.statusCode).to.equal(401);
    expectKeyEnvelope(bad.body, AUTH_MESSAGES.keyInvalid);
  });

  it('GET /tecnicos/servicios: its open offers not yet answered and its active service, with the token or the key and x-dni-tecnico', async () => {
    const colleague = await makeTechnician(em(), prov.central);
    const open = await openOfferFor(em(), gen, prov.technician, 2.25);
    const answered = await openOfferFor(em(), gen, prov.technician);
    await respond(em(), answered, prov);
    await openOfferFor(em(), gen, colleague);
    const closed = await openOfferFor(em(), gen, prov.technician);
    await em().nativeUpdate('Offer', { uuid: closed.uuid }, { state: 'SIN_RESPUESTA' });
    const service = await serviceOf(em(), gen, prov, 'EN_CAMINO');

    const t = await token();
    const res = await work(bearer(t));
    expect(res.statusCode, JSON.stringify(app.logs.filter((l) => Number(l.level) >= 50))).to.equal(200);
    const body = bodyOf(res) as { status: boolean; ofertas: Body[]; servicio: Body };
    expect(body.status).to.equal(true);
    expect(body.ofertas.map((o) => o.uuid)).to.deep.equal([open.uuid]);
    expect(body.ofertas[0]).to.include({ uuid: open.uuid, tipoServicio: 1, distance: 2.25, guardian: 'NO' });
    expect(body.servicio).to.include({ uuid: service.uuid, codigoServicio: service.codigoServicio, estado: 'EN_CAMINO' });
    const servicio = body.servicio.servicio as Body;
    expect(servicio).to.include({ uuid: service.uuid, nombreTipoServicio: 'GRUA' });
    expect(servicio.tecnico).to.deep.equal({ dniTecnico: prov.technician.dni, nombre: prov.technician.names });
    expect(JSON.stringify(servicio)).to.not.include('telefono');

    const byKey = await work({ 'x-apikey': prov.apiKey, 'x-dni-tecnico': prov.technician.dni });
    expect(bodyOf(byKey)).to.deep.equal(body);
    const colleagueWork = bodyOf(await work(bearer(await token(prov, colleague)))) as { ofertas: Body[]; servicio: unknown };
    expect(colleagueWork.ofertas.map((o) => o.uuid)).to.not.include(open.uuid);
    expect(colleagueWork.servicio).to.equal(null);

    const noDni = await work({ 'x-apikey': prov.apiKey });
    expect(noDni.statusCode).to.equal(401);
    expectKeyEnvelope(noDni.body, TECHNICIAN_AUTH_MESSAGES.dniMissing);
    const otherDni = await work({ 'x-apikey': prov.apiKey, 'x-dni-tecnico': rival.technician.dni });
    expect(otherDni.statusCode).to.equal(403);
    await em().nativeUpdate('Offer', { uuid: service.uuid }, { state: 'FINALIZADA' });
    await em().nativeUpdate(Technician, { id: prov.technician.id }, { busyOfferUuid: null });
  });

  it('reports its own position and progress with the token, and nothing of a colleague’s', async () => {
    const t = await token();
    const colleague = await makeTechnician(em(), prov.central);
    const pos = await app.client.put('api/v3/posicion-tecnico', { headers: bearer(t), json: { dniTecnico: colleague.dni, latitud: 4.7, longitud: -74.05 } });
    expect([pos.statusCode, bodyOf(pos)]).to.deep.equal([200, { status: true, data: 'POSICIÓN DEL TÉCNICO ACTUALIZADA' }]);
    expect((await em().findOneOrFail(Technician, prov.technician.id)).lat).to.equal(4.7);
    expect((await em().findOneOrFail(Technician, colleague.id)).lat, 'a colleague named in the body is not moved').to.not.equal(4.7);

    const mine = await serviceOf(em(), gen, prov, 'ASIGNADA');
    const theirs = await serviceOf(em(), gen, prov, 'ASIGNADA', colleague);
    const moved = await app.client.put('api/v3/estado-servicio', { headers: bearer(t), json: { id: mine.uuid, estado: 'EN_CAMINO' } });
    expect([moved.statusCode, bodyOf(moved)]).to.deep.equal([200, { status: true, data: 'ESTADO DEL SERVICIO ACTUALIZADO A EN_CAMINO' }]);
    const refused = await app.client.put('api/v3/estado-servicio', { headers: bearer(t), json: { id: theirs.uuid, estado: 'EN_CAMINO' } });
    expect([refused.statusCode, bodyOf(refused)]).to.deep.equal([404, { status: false, data: 'Oferta no encontrada' }]);
    for (const s of [mine, theirs]) await em().nativeUpdate('Offer', { uuid: s.uuid }, { state: 'FINALIZADA' });
    await em().nativeUpdate(Technician, { id: { $in: [prov.technician.id, colleague.id] } }, { busyOfferUuid: null });
  });

  it('reaches the chat of its assigned service only: a colleague’s token gets 404 as a stranger', async () => {
    const colleague = await makeTechnician(em(), prov.central);
    const service = await serviceOf(em(), gen, prov, 'ASIGNADA');
    const mine = await token();
    const theirs = await token(prov, colleague);
    const sent = await chat(service.codigoServicio!, bearer(mine), { texto: 'Voy en camino' });
    expect(sent.statusCode).to.equal(200);
    expect((bodyOf(sent).data as { message: Body }).message).to.include({ autor: 'tecnico', texto: 'Voy en camino' });
    expect((await chat(service.codigoServicio!, bearer(mine))).statusCode).to.equal(200);
    for (const r of [await chat(service.codigoServicio!, bearer(theirs)), await chat(service.codigoServicio!, bearer(theirs), { texto: 'hola' })]) {
      expect([r.statusCode, bodyOf(r)]).to.deep.equal([404, { status: false, msg: 'EXPEDIENTE NO ENCONTRADO' }]);
    }
    await em().nativeUpdate('Offer', { uuid: service.uuid }, { state: 'FINALIZADA' });
    await em().nativeUpdate(Technician, { id: prov.technician.id }, { busyOfferUuid: null });
  });

  it('refuses at once an expired token, and one whose technician or central became INACTIVO or whose key changed', async () => {
    const expectRefused = async (t: string, why: string) => {
      const res = await work(bearer(t));
      expect(res.statusCode, why).to.equal(401);
      expectKeyEnvelope(res.body, TECHNICIAN_TOKEN_MESSAGES.invalid);
      const pos = await app.client.put('api/v3/posicion-tecnico', { headers: bearer(t), json: { dniTecnico: '1', latitud: 4.7, longitud: -74.05 } });
      expect(pos.statusCode, why).to.equal(401);
    };
    await expectRefused('tec_' + 'A'.repeat(43), 'unknown');

    const p = await makeProvider(em(), { name: 'Grúas Revocadas' });
    const expired = await token(p);
    await em().execute(`update technician_token set expires_at = now() - interval '1 second' where technician_id = ?`, [p.technician.id]);
    await expectRefused(expired, 'expired');

    const t1 = await token(p);
    expect((await work(bearer(t1))).statusCode).to.equal(200);
    await em().nativeUpdate(Technician, { id: p.technician.id }, { status: 'INACTIVO' });
    await expectRefused(t1, 'technician INACTIVO');
    await em().nativeUpdate(Technician, { id: p.technician.id }, { status: 'ACTIVO' });

    const t2 = await token(p);
    await em().nativeUpdate('ApiUser', { id: p.user.id }, { status: 'INACTIVO' });
    await expectRefused(t2, 'central INACTIVO');
    await em().nativeUpdate('ApiUser', { id: p.user.id }, { status: 'ACTIVO' });
    app.rt.authCache.clear();

    const t3 = await token(p);
    await em().nativeUpdate('ApiUser', { id: p.user.id }, { apiKeyHash: apiKeyHash(`${p.apiKey}-rotated`) });
    await expectRefused(t3, 'key changed');
  });

  it('keeps the spec’s key path unchanged: the central reports for its technicians with its key alone', async () => {
    const pos = await app.client.put('api/v3/posicion-tecnico', {
      headers: { 'x-apikey': prov.apiKey },
      json: { dniTecnico: prov.technician.dni, latitud: 4.66, longitud: -74.08 },
    });
    expect([pos.statusCode, bodyOf(pos)]).to.deep.equal([200, { status: true, data: 'POSICIÓN DEL TÉCNICO ACTUALIZADA' }]);
    const unknown = await app.client.put('api/v3/posicion-tecnico', { headers: { 'x-apikey': prov.apiKey }, json: { dniTecnico: rival.technician.dni, latitud: 4.66, longitud: -74.08 } });
    expect(unknown.statusCode).to.equal(404);
    const none = await app.client.put('api/v3/posicion-tecnico', { json: { dniTecnico: prov.technician.dni, latitud: 4.66, longitud: -74.08 } });
    expect(none.statusCode).to.equal(401);
    expectKeyEnvelope(none.body, AUTH_MESSAGES.keyMissing);
    const notOurs = await app.client.put('api/v3/posicion-tecnico', { headers: { authorization: 'Bearer not-a-token' }, json: { dniTecnico: prov.technician.dni, latitud: 4.66, longitud: -74.08 } });
    expectKeyEnvelope(notOurs.body, AUTH_MESSAGES.keyMissing);
  });

  it('never writes a token to the logs or the delivery log', async () => {
    expect(issued.length).to.be.greaterThan(5);
    const logs = JSON.stringify(app.logs);
    const [deliveries] = await em().execute<Array<{ text: string }>>(
      `select coalesce(string_agg(request_headers::text || request_body::text || coalesce(reply_body, ''), ' '), '') as text from webhook_delivery`,
    );
    for (const t of issued) {
      expect(logs).to.not.include(t);
      expect(logs).to.not.include(t.slice(4));
      expect(deliveries.text).to.not.include(t.slice(4));
    }
  });

  it('prunes tokens a day after they expired', async () => {
    const t = await token();
    await em().execute(`update technician_token set expires_at = now() - interval '25 hours' where token_hash = encode(sha256(convert_to(?, 'UTF8')), 'hex')`, [t]);
    const count = async () => Number((await em().execute<Array<{ n: string }>>('select count(*) as n from technician_token'))[0].n);
    const before = await count();
    expect(await pruneTechnicianTokens(em())).to.equal(1);
    expect(await count()).to.equal(before - 1);
  });

  it('an INACTIVO technician is not a candidate for offers', async () => {
    const query = { lat: BOGOTA.lat, lng: BOGOTA.lng, serviceTypeId: 1, radiusKm: 15, maxAgeS: 0, cap: 50 };
    const ids = async () => (await findCandidates(em(), query)).technicians.map((t) => t.technicianId);
    expect(await ids()).to.include(prov.technician.id);
    await em().nativeUpdate(Technician, { id: prov.technician.id }, { status: 'INACTIVO' });
    expect(await ids()).to.not.include(prov.technician.id);
    await em().nativeUpdate(Technician, { id: prov.technician.id }, { status: 'ACTIVO' });
  });
});
