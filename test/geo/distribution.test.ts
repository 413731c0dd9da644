import { expect } from 'chai';
import nock from 'nock';
import { createHmac } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OfferRecipient, Technician, WebhookDelivery, type ApiUser, type Central } from '../../src/db/entities/index.js';
import { distributeOffer } from '../../src/domain/distribution/distribute.js';
import { signOperatorToken } from '../../src/auth/jwt.js';
import { jobId } from '../../src/queues/registry.js';
import { resetDb } from '../helpers/db.js';
import { BOGOTA, makeApiUser, makeCentral, makeOffer, makeOperator, makeServiceType, makeTechnician, type ApiUserOverrides } from '../helpers/factories.js';
import { captureEvents, northOf, square } from '../helpers/geo.js';
import { waitFor } from '../helpers/wait.js';
import { startApp, type TestApp } from '../helpers/harness.js';

const MEDELLIN = { lat: 6.2442, lng: -75.5812 };
const SECRET = 'central-a-webhook-secret-0001';

interface Setup {
  generator: ApiUser;
  a: Central;
  b: Central;
  c: Central;
  slow: Central;
  techs: Record<string, Technician>;
}

async function centralUser(em: EntityManager, host: string, o: ApiUserOverrides = {}): Promise<ApiUser> {
  return (await makeApiUser(em, { urlApi: host, apiEndpoint: { oferta: '/ofertas' }, ...o })).user;
}

/** Bogotá: A (HTTP, signed), B (unreachable), C (no endpoint), SLOW (times out) cover type 1; D covers type 2 only; E covers Medellín. */
async function world(em: EntityManager): Promise<Setup> {
  await makeServiceType(em, { id: 1, type: 'GRUA' });
  await makeServiceType(em, { id: 2, type: 'CONDUCTOR ELEGIDO' });
  const generator = (await makeApiUser(em)).user;
  const a = await makeCentral(em, {
    name: 'Central A',
    apiUser: await centralUser(em, 'http://central-a.test/', { apiKey: 'inbound-key-of-central-a-000000', outboundKey: 'key-of-central-a-000000', webhookSecret: SECRET }),
    coverage: { center: BOGOTA, radiusKm: 40 },
  });
  const b = await makeCentral(em, { name: 'Central B', apiUser: await centralUser(em, 'http://127.0.0.1:1'), coverage: square(BOGOTA, 0.2) });
  const c = await makeCentral(em, { name: 'Central C', coverage: square(BOGOTA, 0.2) });
  const slow = await makeCentral(em, { name: 'Central Lenta', apiUser: await centralUser(em, 'http://slow.test'), coverage: square(BOGOTA, 0.2) });
  const d = await makeCentral(em, { name: 'Central D', serviceTypes: [2], apiUser: await centralUser(em, 'http://central-d.test'), coverage: square(BOGOTA, 0.2) });
  const e = await makeCentral(em, { name: 'Central E', apiUser: await centralUser(em, 'http://central-e.test'), coverage: square(MEDELLIN, 0.2) });
  const techs = {
    a2: await makeTechnician(em, a, { dni: 'A2', position: northOf(BOGOTA, 2) }),
    a5: await makeTechnician(em, a, { dni: 'A5', position: northOf(BOGOTA, 5) }),
    a20: await makeTechnician(em, a, { dni: 'A20', position: northOf(BOGOTA, 20) }),
    aOff: await makeTechnician(em, a, { dni: 'AOFF', position: northOf(BOGOTA, 1), available: false }),
    b1: await makeTechnician(em, b, { dni: 'B1', position: northOf(BOGOTA, 1) }),
    c3: await makeTechnician(em, c, { dni: 'C3', position: northOf(BOGOTA, 3) }),
    d1: await makeTechnician(em, d, { dni: 'D1', position: northOf(BOGOTA, 0.5), serviceTypes: [2] }),
    e1: await makeTechnician(em, e, { dni: 'E1', position: northOf(BOGOTA, 0.5) }),
  };
  return { generator, a, b, c, slow, techs };
}

describe('distribution job (D8)', () => {
  let app: TestApp;
  let em: EntityManager;
  let w: Setup;
  let events: Awaited<ReturnType<typeof captureEvents>>;

  before(async () => {
    app = await startApp({ env: { WEBHOOK_TIMEOUT_MS: '300', SEARCH_RADIUS_KM: '15', PRIORITY_SEARCH_RADIUS_KM: '30', DISTRIBUTION_CAP: '50' } });
    events = await captureEvents(app.rt.config.redisUrl, app.rt.config.queuePrefix);
  });
  beforeEach(async () => {
    await resetDb(app.rt.orm);
    em = app.rt.orm.em.fork();
    w = await world(em);
    events.messages.length = 0;
  });
  afterEach(() => nock.cleanAll());
  after(async () => {
    events.close();
    await app.close();
  });

  const offerNew = (uuid: string) =>
    events.messages.filter((m) => m.event === 'offer.new' && (m.data as { uuid: string }).uuid === uuid);
  /** the offer's rows: one per covering central */
  const recipients = (uuid: string) => em.fork().find(OfferRecipient, { offer: uuid }, { populate: ['central', 'delivery'], orderBy: { id: 'asc' } });
  /** the technicians recorded in those rows, nearest first */
  const technicianRows = async (uuid: string) => {
    const rows = await recipients(uuid);
    const ids = rows.flatMap((r) => r.technicianIds);
    const dni = new Map((await em.fork().find(Technician, { id: { $in: ids } })).map((t) => [t.id, t.dni]));
    return rows
      .flatMap((r) => r.technicianIds.map((id, i) => ({ dni: dni.get(id)!, distanceKm: r.technicianKm[i], notifiedAt: r.techniciansNotifiedAt })))
      .sort((a, b) => a.distanceKm - b.distanceKm);
  };

  it('an offer in Bogotá reaches exactly the covering centrals of its type and their nearby available technicians', async () => {
    let received: { body: Record<string, unknown>; headers: Record<string, string | string[] | undefined> } | undefined;
    const scopeA = nock('http://central-a.test')
      .put('/ofertas')
      .reply(function (_uri, body) {
        received = { body: body as Record<string, unknown>, headers: this.req.headers };
        return [200, { status: true }];
      });
    nock('http://slow.test').put('/ofertas').delay(2000).reply(200, 'late');
    const offer = await makeOffer(em, w.generator, { direccionOrigen: 'Calle 72 # 10-34', observaciones: 'Llanta pinchada' });

    const outcome = await distributeOffer(app.rt, offer.uuid);
    expect(outcome).to.deep.equal({ centrals: 4, technicians: 4, published: 4, pushed: 1, pushFailed: 2 });
    expect(scopeA.isDone()).to.equal(true);

    // the push: the offer's fields, its deadline and the central's nearby technicians; signed
    expect(received!.body).to.deep.equal({
      uuid: offer.uuid,
      tipoServicio: 1,
      descripcionServicio: 'GRUA',
      latitudOrigen: BOGOTA.lat,
      longitudOrigen: BOGOTA.lng,
      direccionOrigen: 'Calle 72 # 10-34',
      ciudad: 'Bogotá',
      departamento: 'Cundinamarca',
      direccionDestino: null,
      latitudDestino: null,
      longitudDestino: null,
      observaciones: 'Llanta pinchada',
      guardian: 'NO',
      deadline: offer.deadlineAt!.toISOString(),
      puntoReferenciaOrigen: null,
      puntoReferenciaDestino: null,
      fechaCita: null,
      horaCita: null,
      tecnicosCercanos: [
        { dniTecnico: 'A2', distance: 2 },
        { dniTecnico: 'A5', distance: 5 },
      ],
    });
    const h = received!.headers;
    expect(h['content-type']).to.equal('application/json');
    // D24: the profile's own outbound key, never the key it calls us with
    expect(h['x-apikey']).to.equal('key-of-central-a-000000');
    const expectedSig = createHmac('sha256', SECRET).update(`${String(h['x-timestamp'])}.${JSON.stringify(received!.body)}`).digest('hex');
    expect(h['x-signature']).to.equal(expectedSig);

    // who received it, and when
    const centrals = await recipients(offer.uuid);
    expect(centrals.map((r) => [r.central.name, r.channel]).sort()).to.deep.equal([
      ['Central A', 'http'],
      ['Central B', 'http'],
      ['Central C', 'none'],
      ['Central Lenta', 'http'],
    ]);
    const byName = Object.fromEntries(centrals.map((r) => [r.central.name, r.delivery]));
    expect(byName['Central A']).to.include({ state: 'ok', statusCode: 200, kind: 'offer-push', attempts: 1, method: 'PUT' });
    expect(byName['Central A']!.requestHeaders['x-apikey']).to.equal('(redacted)');
    expect(byName['Central B']).to.include({ state: 'failed', statusCode: null });
    expect(byName['Central B']!.error).to.match(/ECONNREFUSED/);
    expect(byName['Central Lenta']).to.include({ state: 'failed', statusCode: null });
    expect(byName['Central Lenta']!.error).to.match(/ETIMEDOUT/);
    expect(byName['Central C']).to.equal(null);

    const techRows = await technicianRows(offer.uuid);
    expect(techRows.map((r) => [r.dni, r.distanceKm])).to.deep.equal([
      ['B1', 1],
      ['A2', 2],
      ['C3', 3],
      ['A5', 5],
    ]);
    techRows.forEach((r) => expect(r.notifiedAt).to.be.instanceOf(Date));

    // offer.new to each of those technicians, with its distance
    await waitFor(() => offerNew(offer.uuid).length === 4);
    const got = offerNew(offer.uuid).map((m) => [m.audience, (m.data as { distance: number }).distance]);
    expect(got).to.deep.equal([
      [{ kind: 'technician', technicianId: w.techs.b1.id }, 1],
      [{ kind: 'technician', technicianId: w.techs.a2.id }, 2],
      [{ kind: 'technician', technicianId: w.techs.c3.id }, 3],
      [{ kind: 'technician', technicianId: w.techs.a5.id }, 5],
    ]);
    expect(offerNew(offer.uuid)[0].data).to.include({ uuid: offer.uuid, guardian: 'NO', tipoServicio: 1, deadline: offer.deadlineAt!.toISOString() });
  });

  it('is idempotent: a re-run pushes and publishes nothing twice', async () => {
    const scopeA = nock('http://central-a.test').put('/ofertas').once().reply(200, 'ok');
    nock('http://slow.test').put('/ofertas').once().reply(200, 'ok');
    const offer = await makeOffer(em, w.generator);
    await distributeOffer(app.rt, offer.uuid);
    const again = await distributeOffer(app.rt, offer.uuid);
    expect(again).to.deep.equal({ centrals: 4, technicians: 4, published: 0, pushed: 0, pushFailed: 0 });
    expect(scopeA.isDone()).to.equal(true);
    expect(await em.fork().count(WebhookDelivery, { offer: offer.uuid, kind: 'offer-push' })).to.equal(3);
    await waitFor(() => offerNew(offer.uuid).length >= 4);
    // a later technician nearby does not join a distribution already made
    await makeTechnician(em, w.a, { dni: 'LATE', position: northOf(BOGOTA, 0.2) });
    await distributeOffer(app.rt, offer.uuid);
    expect((await recipients(offer.uuid)).length).to.equal(4);
    expect((await technicianRows(offer.uuid)).map((t) => t.dni)).to.deep.equal(['B1', 'A2', 'C3', 'A5']);
    expect(offerNew(offer.uuid).length).to.equal(4);
  });

  it('a priority offer (guardian SI) searches the wider radius; the cap keeps the nearest', async () => {
    nock('http://central-a.test').put('/ofertas').reply(200, 'ok');
    nock('http://slow.test').put('/ofertas').reply(200, 'ok');
    const priority = await makeOffer(em, w.generator, { priority: true });
    await distributeOffer(app.rt, priority.uuid);
    const dnis = (await technicianRows(priority.uuid)).map((t) => t.dni);
    expect(dnis).to.deep.equal(['B1', 'A2', 'C3', 'A5', 'A20']);

    const capped = await startApp({ env: { DISTRIBUTION_CAP: '2', WEBHOOK_TIMEOUT_MS: '300' } });
    try {
      nock('http://central-a.test').put('/ofertas').reply(200, 'ok');
      nock('http://slow.test').put('/ofertas').reply(200, 'ok');
      const offer = await makeOffer(em, w.generator);
      await distributeOffer(capped.rt, offer.uuid);
      const near = (await technicianRows(offer.uuid)).map((t) => t.dni);
      expect(near).to.deep.equal(['B1', 'A2']);
    } finally {
      await capped.close();
    }
  });

  it('does nothing for an offer that is gone or no longer open', async () => {
    const closed = await makeOffer(em, w.generator, { state: 'NO_ASIGNADA' });
    expect(await distributeOffer(app.rt, closed.uuid)).to.equal(null);
    expect(await distributeOffer(app.rt, '00000000-0000-4000-8000-000000000000')).to.equal(null);
    expect(await em.fork().count(OfferRecipient, {})).to.equal(0);
  });

  it('runs as the offer-distribution/distribute job, and operators see the recipients', async () => {
    const withWorkers = await startApp({ workers: true, env: { WEBHOOK_TIMEOUT_MS: '300' } });
    try {
      nock('http://central-a.test').put('/ofertas').reply(200, 'ok');
      nock('http://slow.test').put('/ofertas').reply(503, 'busy');
      const offer = await makeOffer(em, w.generator);
      await withWorkers.rt.queues.add('offer-distribution', 'distribute', { offerUuid: offer.uuid }, { jobId: jobId('distribute', offer.uuid) });
      await waitFor(async () => (await em.fork().count(WebhookDelivery, { offer: offer.uuid, state: { $in: ['ok', 'failed'] } })) === 3);

      const { operator } = await makeOperator(em);
      const token = await signOperatorToken(operator, app.rt.config.jwtSecret, '1h');
      const res = await app.client.get(`api/v3/admin/offers/${offer.uuid}/recipients`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.statusCode).to.equal(200);
      const body = res.body as unknown as { status: boolean; msg: string; data: { uuid: string; estado: string; recipients: Array<Record<string, unknown>> } };
      expect(body).to.include({ status: true, msg: 'DESTINATARIOS DE LA OFERTA' });
      expect(body.data).to.include({ uuid: offer.uuid, estado: 'ABIERTA' });
      const list = body.data.recipients;
      expect(list.filter((r) => r.kind === 'central')).to.have.length(4);
      expect(list.filter((r) => r.kind === 'technician')).to.have.length(4);
      const a = list.find((r) => (r.central as { name: string }).name === 'Central A')!;
      expect(a).to.include({ channel: 'http', technician: null, distanceKm: null });
      expect(a.push).to.include({ state: 'ok', statusCode: 200, url: 'http://central-a.test/ofertas' });
      expect(Date.parse(a.sentAt as string)).to.be.a('number').and.not.NaN;
      const slow = list.find((r) => (r.central as { name: string }).name === 'Central Lenta')!;
      expect(slow.push).to.include({ state: 'failed', statusCode: 503, error: 'HTTP 503' });
      const b1 = list.find((r) => (r.technician as { dni: string } | null)?.dni === 'B1')!;
      expect(b1).to.include({ kind: 'technician', channel: 'realtime', distanceKm: 1, push: null });
      expect(b1.central).to.deep.equal({ nit: w.b.nit, name: 'Central B' });
      expect(Date.parse(b1.sentAt as string)).to.be.at.least(Date.parse(b1.selectedAt as string));

      const anonymous = await app.client.get(`api/v3/admin/offers/${offer.uuid}/recipients`);
      expect(anonymous.statusCode).to.equal(401);
      for (const uuid of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
        const missing = await app.client.get(`api/v3/admin/offers/${uuid}/recipients`, { headers: { authorization: `Bearer ${token}` } });
        expect(missing.statusCode).to.equal(404);
        expect(missing.body).to.deep.equal({ status: false, msg: 'OFERTA NO ENCONTRADA' });
      }
    } finally {
      await withWorkers.close();
    }
  });
});
