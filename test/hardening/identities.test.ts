/**
 * Issue 8.10: identities are bounded where they enter (provisioning, Basic, API keys) and the audit
 * trail's actor is built from bounded parts, so a long username or tax id never makes a tenant's
 * transitions fail.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import nock from 'nock';
import { ApiUser, Offer, OfferTransition } from '../../src/db/entities/index.js';
import { transition } from '../../src/domain/offers/lifecycle/moves.js';
import { AUTH_MESSAGES } from '../../src/http/auth/index.js';
import { ACTOR_MAX_LENGTH, IDENTITY_LIMITS, auditActor } from '../../src/limits.js';
import { provision } from '../../src/provisioning/index.js';
import { SCHEMA_PATH } from '../../src/provisioning/document.js';
import { expectKeyEnvelope, expectSystemEnvelope } from '../helpers/envelopes.js';
import { makeOffer, makeServiceType } from '../helpers/factories.js';
import { basic, startCleanApp, type TestApp } from '../helpers/harness.js';
import { exampleDocument } from '../helpers/provisioning.js';
import { GENERATOR_URL, RESPUESTA_PATH, acceptanceBody, distributeTo, makeGenerator, makeResponder, offerBody } from '../helpers/offers.js';
import { waitFor } from '../helpers/wait.js';

describe('hardening: long identities (issue 8.10)', () => {
  let app: TestApp;
  const fork = () => app.rt.orm.em.fork();

  before(async () => {
    app = await startCleanApp({ env: { OFFER_RESPONSE_WINDOW_MS: '300', WEBHOOK_TIMEOUT_MS: '1000' } });
    await makeServiceType(fork(), { id: 1 });
  });
  afterEach(() => nock.cleanAll());
  after(async () => {
    await app?.close();
  });

  it('provisioning refuses a 300-character username, nit, dni or key, naming each path, and writes nothing', async () => {
    const doc = exampleDocument() as unknown as {
      apiUsers: Array<Record<string, unknown>>;
      centrals: Array<Record<string, unknown>>;
      technicians: Array<Record<string, unknown>>;
      operators: Array<Record<string, unknown>>;
    };
    doc.apiUsers[0].username = 'u'.repeat(300);
    doc.apiUsers[0].apiKey = 'k'.repeat(300);
    doc.centrals[0].nit = '9'.repeat(300);
    doc.technicians[0].dni = '1'.repeat(300);
    doc.operators[0].username = 'o'.repeat(300);
    const result = await provision(fork(), doc);
    expect(result.ok).to.equal(false);
    const problems = result.ok ? [] : result.problems;
    for (const path of ['/apiUsers/0/username', '/apiUsers/0/apiKey', '/centrals/0/nit', '/technicians/0/dni', '/operators/0/username']) {
      expect(problems.some((p) => p.startsWith(`${path}: must NOT have more than`)), `${path} in ${problems.join('\n')}`).to.equal(true);
    }
    expect(await fork().count(Offer)).to.equal(0);
  });

  it('the schema states the same bounds as the code', () => {
    const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as {
      properties: Record<string, { items: { properties: Record<string, { maxLength?: number }> } }>;
    };
    const p = (section: string, field: string) => schema.properties[section].items.properties[field].maxLength;
    expect(p('apiUsers', 'username')).to.equal(IDENTITY_LIMITS.username);
    expect(p('operators', 'username')).to.equal(IDENTITY_LIMITS.username);
    expect(p('apiUsers', 'password')).to.equal(IDENTITY_LIMITS.password);
    expect(p('apiUsers', 'apiKey')).to.equal(IDENTITY_LIMITS.apiKey);
    expect(p('centrals', 'nit')).to.equal(IDENTITY_LIMITS.nit);
    expect(p('technicians', 'dni')).to.equal(IDENTITY_LIMITS.dni);
    // Every actor built from bounded parts fits its column.
    expect(`api-user:${'u'.repeat(IDENTITY_LIMITS.username)}`.length).to.be.at.most(ACTOR_MAX_LENGTH);
    expect(auditActor('x'.repeat(1000))).to.have.length(ACTOR_MAX_LENGTH);
  });

  it('a transition whose actor was built from an over-long part (a row older than the bounds) is still recorded', async () => {
    const gen = await makeGenerator(fork(), { username: 'h'.repeat(255) });
    const em = fork();
    const offer = await makeOffer(em, await em.findOneOrFail(ApiUser, gen.user.id));
    await em.transactional((tx) => transition(tx, offer, { to: 'NO_ASIGNADA', by: 'no-asignacion', actor: `api-user:${'h'.repeat(255)}` }));
    const [row] = await fork().find(OfferTransition, { offer: offer.uuid });
    expect(row.actor).to.have.length(ACTOR_MAX_LENGTH);
    expect(row.actor.startsWith('api-user:hhh')).to.equal(true);
  });

  it('Basic credentials and API keys longer than any issued are refused (401) before any lookup', async () => {
    const long = await app.client('api/v3/types', { headers: { authorization: basic('u'.repeat(IDENTITY_LIMITS.username + 1), 'pw') } });
    expect(long.statusCode).to.equal(401);
    expectSystemEnvelope(long.body, AUTH_MESSAGES.basicInvalid);
    const longPw = await app.client('api/v3/types', { headers: { authorization: basic('u', 'p'.repeat(IDENTITY_LIMITS.password + 1)) } });
    expect(longPw.statusCode).to.equal(401);
    const key = await app.client.put('api/v3/aceptacion', { json: {}, headers: { 'x-apikey': 'k'.repeat(IDENTITY_LIMITS.apiKey + 1) } });
    expect(key.statusCode).to.equal(401);
    expectKeyEnvelope(key.body, AUTH_MESSAGES.keyInvalid);
  });

  it('a tenant with the longest allowed username and a central with the longest nit run a whole lifecycle', async () => {
    const gen = await makeGenerator(fork(), { username: 'g'.repeat(IDENTITY_LIMITS.username) });
    const central = await makeResponder(fork(), { nit: '9'.repeat(IDENTITY_LIMITS.nit) });
    central.user.endpoints = ['*'];
    await fork().nativeUpdate('ApiUser', { id: central.user.id }, { endpoints: ['*'] });
    nock(GENERATOR_URL).put(RESPUESTA_PATH).reply(200, 'OK');

    const body = offerBody();
    const uuid = body.uuid as string;
    const auth = { authorization: gen.auth };
    expect((await app.client.post('api/v3/oferta', { json: body, headers: auth })).statusCode).to.equal(200);
    await distributeTo(app.rt.orm.em.fork(), uuid, central); // D20: only a recipient answers
    const accepted = await app.client.put('api/v3/aceptacion', { json: acceptanceBody(uuid, central, { tiempoLlegadaSitio: 7 }), headers: { 'x-apikey': central.key } });
    expect(accepted.statusCode, JSON.stringify(accepted.body)).to.equal(200);
    const state = async () => (await fork().findOneOrFail(Offer, { uuid })).state;
    await waitFor(async () => (await state()) === 'ACEPTADA', 10000, 'ACEPTADA');
    const assigned = await app.client.post('api/v3/asignacion', { json: { uuid }, headers: auth });
    expect(assigned.statusCode, JSON.stringify(assigned.body)).to.equal(200);
    for (const estado of ['EN_CAMINO', 'EN_SITIO']) {
      const res = await app.client.put('api/v3/estado-servicio', { json: { id: uuid, estado }, headers: { 'x-apikey': central.key } });
      expect(res.statusCode, JSON.stringify(res.body)).to.equal(200);
    }
    const finalized = await app.client.post('api/v3/finalize', { json: { uuid }, headers: auth });
    expect(finalized.statusCode, JSON.stringify(finalized.body)).to.equal(200);
    expect(await state()).to.equal('FINALIZADA');

    const actors = (await fork().find(OfferTransition, { offer: uuid }, { orderBy: { id: 'asc' } })).map((t) => t.actor);
    expect(actors.length).to.be.at.least(5);
    for (const a of actors) expect(a.length).to.be.at.most(ACTOR_MAX_LENGTH);
    expect(actors[0]).to.equal(`api-user:${'g'.repeat(IDENTITY_LIMITS.username)}`);
    expect(actors).to.include(`central:${'9'.repeat(IDENTITY_LIMITS.nit)}`);
  });
});
