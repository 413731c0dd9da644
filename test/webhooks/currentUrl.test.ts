/**
 * A retry or a resend goes to the receiver's current URL (issue 29 item 4e):
 * the profile's url_api and endpoint are read at send time, never the URL
 * frozen in the delivery row when it was planned; each attempt records where
 * it went. The x-apikey carried is the profile's outbound key (D24).
 */
import { expect } from 'chai';
import nock from 'nock';
import { ApiUser } from '../../src/db/entities/index.js';
import { createDelivery } from '../../src/db/stores/deliveries.js';
import { resendDelivery } from '../../src/domain/deliveries/resend.js';
import { deliverStateNotification } from '../../src/domain/notifications/deliver.js';
import type { TestApp } from '../helpers/harness.js';
import { GENERATOR_URL, offerIn, startOps, type Generator, type Provider } from '../helpers/ops.js';

describe('webhooks go to the receiver’s current URL (issue 29 item 4)', () => {
  let app: TestApp;
  let gen: Generator;
  let prov: Provider;
  before(async () => {
    ({ app, gen, prov } = await startOps({ generator: { outboundKey: 'outbound-key-of-the-generator-01' } }));
  });
  after(async () => {
    nock.cleanAll();
    await app.close();
  });
  afterEach(() => nock.cleanAll());

  const em = () => app.rt.orm.em.fork();
  const moveTo = (urlApi: string) => em().nativeUpdate(ApiUser, { id: gen.user.id }, { urlApi });

  it('a retry after the receiver moved goes to the new URL; a manual resend to where it is then; attempts say where', async () => {
    const e = em();
    const offer = await offerIn(e, gen, 'ASIGNADA', prov);
    const d = createDelivery(e, { offer, kind: 'state', receiver: gen.user, url: `${GENERATOR_URL}/estado`, body: { id: offer.uuid, estado: 'EN_CAMINO' }, eventHeader: true });
    await e.flush();

    const keys: unknown[] = [];
    nock(GENERATOR_URL).put('/estado').reply(500, 'down');
    expect((await deliverStateNotification(app.rt, d.id)).kind).to.equal('retry');

    await moveTo('http://moved.test/base/');
    nock('http://moved.test')
      .put('/base/estado')
      .reply(200, function () {
        keys.push(this.req.headers['x-apikey']);
        return 'ok';
      });
    expect((await deliverStateNotification(app.rt, d.id)).kind).to.equal('delivered');

    await moveTo('http://again.test');
    nock('http://again.test').put('/estado').reply(200, 'ok');
    const resent = await resendDelivery(app.rt, { deliveryId: d.id, operator: { username: 'admin', role: 'admin' } });
    expect(resent).to.include({ ok: true, statusCode: 200 });
    expect(nock.isDone()).to.equal(true);
    expect(keys).to.deep.equal(['outbound-key-of-the-generator-01']);

    const attempts = await em().execute<Array<{ url: string; status_code: number }>>(`select url, status_code from webhook_attempt where delivery_id = ? order by id`, [d.id]);
    expect(attempts).to.deep.equal([
      { url: `${GENERATOR_URL}/estado`, status_code: 500 },
      { url: 'http://moved.test/base/estado', status_code: 200 },
      { url: 'http://again.test/estado', status_code: 200 },
    ]);
    await moveTo(GENERATOR_URL);
  });

  it('a profile that no longer has the endpoint sends nothing, and says why', async () => {
    const e = em();
    const offer = await offerIn(e, gen, 'ASIGNADA', prov);
    const d = createDelivery(e, { offer, kind: 'state', receiver: gen.user, url: `${GENERATOR_URL}/estado`, body: { id: offer.uuid, estado: 'EN_SITIO' }, eventHeader: true });
    await e.flush();
    await em().nativeUpdate(ApiUser, { id: gen.user.id }, { apiEndpoint: { respuesta: '/r' } });
    try {
      const out = await deliverStateNotification(app.rt, d.id);
      expect(out).to.deep.equal({ kind: 'retry', afterMs: null, reason: "the receiver's profile has no estado endpoint now" });
    } finally {
      await em().nativeUpdate(ApiUser, { id: gen.user.id }, { apiEndpoint: { respuesta: '/r', estado: '/estado' } });
    }
  });
});
