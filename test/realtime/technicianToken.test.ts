/**
 * A technician's socket with its own token (D20): opened with the token,
 * acting as that technician alone, closed when the token is no longer valid
 * (the periodic re-check, SOCKET_RECHECK_MS), and resynced on
 * (re)connect: `offer.new` for each open offer not answered, `service.assigned`
 * for its service, to that socket only.
 */
import { expect } from 'chai';
import { apiKeyHash } from '../../src/auth/passwords.js';
import { TECHNICIAN_TOKEN_MESSAGES } from '../../src/auth/technicianToken.js';
import { Technician } from '../../src/db/entities/index.js';
import { TOKEN_REVOKED_CLOSE } from '../../src/realtime/server.js';
import { expectKeyEnvelope } from '../helpers/envelopes.js';
import { makeTechnician } from '../helpers/factories.js';
import type { TestApp } from '../helpers/harness.js';
import { makeProvider, respond, startOps, type Generator, type Provider } from '../helpers/ops.js';
import { connect, refusal, wsUrl, type TestSocket } from '../helpers/sockets.js';
import { bearer, issueToken, openOfferFor, serviceOf } from '../helpers/technicians.js';
import { waitFor } from '../helpers/wait.js';

type Body = Record<string, unknown>;

describe('real time: a technician’s socket with its own token (D20)', () => {
  let app: TestApp;
  let gen: Generator;
  let prov: Provider;
  const open: TestSocket[] = [];

  before(async () => {
    ({ app, gen, prov } = await startOps({ env: { SOCKET_RECHECK_MS: '50' } }));
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close().catch(() => undefined)));
  });
  after(async () => app.close());

  const em = () => app.rt.orm.em.fork();
  const socket = async (token: string) => {
    const s = await connect(wsUrl(app.url), { headers: bearer(token) });
    open.push(s);
    return s;
  };

  it('opens with the token as that technician: its position moves its own row', async () => {
    const t = await issueToken(app.client, prov.apiKey, prov.technician.dni);
    const s = await socket(t);
    s.send('position', { latitud: 4.71, longitud: -74.04 }, 'p1');
    const result = await s.next('position.result');
    expect(result.data).to.deep.equal({ status: 200, body: { status: true, data: 'POSICIÓN DEL TÉCNICO ACTUALIZADA' } });
    expect((await em().findOneOrFail(Technician, prov.technician.id)).lat).to.equal(4.71);
  });

  it('refuses an unknown, expired or other central’s token at the upgrade; a colleague’s token opens the colleague’s socket only', async () => {
    const unknown = await refusal(wsUrl(app.url), { headers: bearer('tec_' + 'B'.repeat(43)) });
    expect(unknown.status).to.equal(401);
    expectKeyEnvelope(unknown.body, TECHNICIAN_TOKEN_MESSAGES.invalid);

    const rival = await makeProvider(em(), { name: 'Grúas Rivales' });
    const other = await app.client.post('api/v3/tecnicos/token', { headers: { 'x-apikey': prov.apiKey }, json: { dniTecnico: rival.technician.dni } });
    expect(other.statusCode).to.equal(404);

    const t = await issueToken(app.client, prov.apiKey, prov.technician.dni);
    await em().execute(`update technician_token set expires_at = now() - interval '1 second' where technician_id = ?`, [prov.technician.id]);
    expect((await refusal(wsUrl(app.url), { headers: bearer(t) })).status).to.equal(401);

    // a colleague's token is the colleague: an offer published to this technician does not reach it
    const colleague = await makeTechnician(em(), prov.central);
    const offer = await openOfferFor(em(), gen, prov.technician);
    const theirs = await socket(await issueToken(app.client, prov.apiKey, colleague.dni));
    const mine = await socket(await issueToken(app.client, prov.apiKey, prov.technician.dni));
    await mine.next('offer.new', (f) => (f.data as Body).uuid === offer.uuid);
    expect(theirs.events('offer.new').map((f) => (f.data as Body).uuid)).to.not.include(offer.uuid);
    await em().nativeUpdate('Offer', { uuid: offer.uuid }, { state: 'SIN_RESPUESTA' });
  });

  it('closes the open sockets of a token whose technician becomes INACTIVO, then refuses it at the upgrade', async () => {
    const p = await makeProvider(em(), { name: 'Grúas Inactivas' });
    const t = await issueToken(app.client, p.apiKey, p.technician.dni);
    const [a, b] = [await socket(t), await socket(t)];
    const closed = Promise.all([a.closed(), b.closed()]);
    await em().nativeUpdate(Technician, { id: p.technician.id }, { status: 'INACTIVO' });
    expect(await closed).to.deep.equal([TOKEN_REVOKED_CLOSE, TOKEN_REVOKED_CLOSE]);
    expect((await refusal(wsUrl(app.url), { headers: bearer(t) })).status).to.equal(401);
    const issue = await app.client.post('api/v3/tecnicos/token', { headers: { 'x-apikey': p.apiKey }, json: { dniTecnico: p.technician.dni } });
    expect(issue.statusCode).to.equal(403);
  });

  it('closes the sockets when the central’s user becomes INACTIVO or its key changes, the key+dni socket too (D24)', async () => {
    const p = await makeProvider(em(), { name: 'Grúas Rotadas' });
    const q = await makeProvider(em(), { name: 'Grúas Dormidas' });
    const rotated = await socket(await issueToken(app.client, p.apiKey, p.technician.dni));
    const dormant = await socket(await issueToken(app.client, q.apiKey, q.technician.dni));
    const byKey = await connect(wsUrl(app.url), { headers: { 'x-apikey': p.apiKey, 'x-dni-tecnico': p.technician.dni } });
    open.push(byKey);
    const closed = Promise.all([rotated.closed(), dormant.closed(), byKey.closed()]);
    await em().nativeUpdate('ApiUser', { id: p.user.id }, { apiKeyHash: apiKeyHash(`${p.apiKey}-rotated`) });
    await em().nativeUpdate('ApiUser', { id: q.user.id }, { status: 'INACTIVO' });
    // the key+dni socket's key is no longer any user's: its re-check (D24) closes it as well
    expect(await closed).to.deep.equal([TOKEN_REVOKED_CLOSE, TOKEN_REVOKED_CLOSE, 4401]);
  });

  it('resyncs a (re)connecting socket, alone: offer.new for each open offer not answered, service.assigned for its service', async () => {
    const p = await makeProvider(em(), { name: 'Grúas Reconectadas' });
    const colleague = await makeTechnician(em(), p.central);
    const first = await openOfferFor(em(), gen, p.technician, 1.25);
    const second = await openOfferFor(em(), gen, p.technician, 3);
    const answered = await openOfferFor(em(), gen, p.technician);
    await respond(em(), answered, p);
    const service = await serviceOf(em(), gen, p, 'EN_CAMINO');
    const t = await issueToken(app.client, p.apiKey, p.technician.dni);

    const watcher = await socket(t);
    const colleagueSocket = await socket(await issueToken(app.client, p.apiKey, colleague.dni));
    await watcher.next('service.assigned');
    const before = watcher.frames.length;

    const again = await socket(t); // the phone reconnects
    const assigned = await again.next('service.assigned');
    const offers = again.events('offer.new').map((f) => f.data as Body);
    expect(offers.map((o) => o.uuid)).to.deep.equal([first.uuid, second.uuid]);
    expect(offers.map((o) => o.distance)).to.deep.equal([1.25, 3]);
    const data = assigned.data as Body;
    expect(data).to.include({ uuid: service.uuid, codigoServicio: service.codigoServicio, estado: 'EN_CAMINO' });
    expect((data.servicio as Body).tecnico).to.deep.equal({ dniTecnico: p.technician.dni, nombre: p.technician.names });

    // to that socket only: neither its other socket nor a colleague's got it again
    const ping = (s: TestSocket) => {
      s.send('ping', {}, 'sync');
      return s.next('pong', (f) => f.ref === 'sync');
    };
    await Promise.all([ping(watcher), ping(colleagueSocket)]);
    expect(watcher.frames.slice(before).map((f) => f.event)).to.deep.equal(['pong']);
    expect(colleagueSocket.events('offer.new').length + colleagueSocket.events('service.assigned').length).to.equal(0);

    // the resynced socket is enrolled for the offer's later events
    await waitFor(() => app.http.realtime.trackedOffers > 0, 2000, 'offer enrolment');
  });
});
