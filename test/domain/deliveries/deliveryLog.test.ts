/**
 * Issue 11 items 1–3: every state notified (D12), Standard Webhooks
 * signatures checked with the `standardwebhooks` package (D17), every attempt
 * kept, a generator's own deliveries over the API, resend by hand, retention
 * (D18).
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { pruneDeliveries } from '../../../src/domain/deliveries/log.js';
import { resendDelivery } from '../../../src/domain/deliveries/resend.js';
import { evaluateOffer, expireOffer } from '../../../src/domain/offers/selection/evaluation.js';
import { makeApiUser } from '../../helpers/factories.js';
import type { TestApp } from '../../helpers/harness.js';
import { bodyOf, deliveriesOf, makeProvider, offerIn, startOps, type Generator, type Provider } from '../../helpers/ops.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';
import { waitFor } from '../../helpers/wait.js';

const WHSEC = `whsec_${Buffer.from('a secret of thirty-two bytes!!!!').toString('base64')}`;
const PLAIN = 'a-plain-webhook-secret';

describe('webhooks: every state, standard signatures, the delivery log (issue 11)', () => {
  let app: TestApp;
  let rcv: Receiver;
  let gen: Generator;
  let plainGen: Generator;
  let other: Generator;
  let prov: Provider;

  before(async () => {
    rcv = await startReceiver();
    const suite = await startOps({ workers: true, env: { NOTIFICATION_BACKOFF_MS: '50', NOTIFICATION_ATTEMPTS: '3' } });
    ({ app, other, prov } = suite);
    const profile = (secret: string) => ({ urlApi: rcv.url, apiEndpoint: { respuesta: '/respuesta', estado: '/estado' }, webhookSecret: secret });
    const made = await makeApiUser(suite.em, profile(WHSEC));
    gen = { user: made.user, password: made.password, auth: `Basic ${Buffer.from(`${made.user.username}:${made.password}`).toString('base64')}` } as Generator;
    const plain = await makeApiUser(suite.em, profile(PLAIN));
    plainGen = { user: plain.user, password: plain.password, auth: `Basic ${Buffer.from(`${plain.user.username}:${plain.password}`).toString('base64')}` } as Generator;
  });
  after(async () => {
    await app.close();
    await rcv.close();
  });
  beforeEach(() => {
    rcv.calls.length = 0;
    rcv.replies.length = 0;
  });

  const em = () => app.rt.orm.em.fork();
  const settled = (uuid: string, n: number) =>
    waitFor(async () => {
      const ds = await deliveriesOf(app.rt.orm.em, uuid);
      return ds.length === n && ds.every((d) => d.state === 'ok' || d.state === 'failed') ? ds : null;
    }, 8000);
  const progress = (uuid: string, estado: string) => app.client.put('api/v3/estado-servicio', { headers: { 'x-apikey': prov.apiKey }, json: { id: uuid, estado } });
  const verifyWith = (secret: string, format?: 'raw') => (call: { raw: string; headers: Record<string, unknown> }) =>
    new Webhook(secret, format ? { format } : undefined).verify(call.raw, call.headers as Record<string, string>);

  it('D17: webhook-id, webhook-timestamp and webhook-signature verify with standardwebhooks (whsec_ and plain secrets); webhook-id = x-event-id, stable across retries', async () => {
    rcv.replies.push(500);
    const offer = await offerIn(em(), gen, 'ASIGNADA', prov, { codigoServicio: 'SV-AB2C3D' });
    expect((await progress(offer.uuid, 'EN_CAMINO')).statusCode).to.equal(200);
    const [d] = await settled(offer.uuid, 1);
    expect(rcv.calls).to.have.length(2);
    for (const call of rcv.calls) {
      expect(verifyWith(WHSEC)(call)).to.deep.equal(JSON.parse(call.raw));
      expect(call.headers['webhook-id']).to.equal(d.eventId).and.equal(call.headers['x-event-id']);
      expect(call.headers).to.include.keys('x-timestamp', 'x-signature', 'webhook-timestamp');
    }
    expect(() => verifyWith(PLAIN, 'raw')(rcv.calls[0])).to.throw();

    rcv.calls.length = 0;
    const plainOffer = await offerIn(em(), plainGen, 'ASIGNADA', prov);
    expect((await progress(plainOffer.uuid, 'EN_CAMINO')).statusCode).to.equal(200);
    await settled(plainOffer.uuid, 1);
    expect(verifyWith(PLAIN, 'raw')(rcv.calls[0])).to.include({ id: plainOffer.uuid, estado: 'EN_CAMINO' });
  });

  it('D18: every attempt is kept with its request headers, status, latency and reply', async () => {
    rcv.replies.push(503, 500);
    const offer = await offerIn(em(), gen, 'ASIGNADA', prov);
    await progress(offer.uuid, 'EN_CAMINO');
    const [d] = await settled(offer.uuid, 1);
    const attempts = await em().execute<Array<{ attempt: number; status_code: number; actor: string; reply_body: string; request_headers: Record<string, string> }>>(
      `select * from webhook_attempt where delivery_id = ? order by id`,
      [d.id],
    );
    expect(attempts.map((a) => [a.attempt, a.status_code, a.actor, a.reply_body])).to.deep.equal([
      [1, 503, 'system', 'no'],
      [2, 500, 'system', 'no'],
      [3, 200, 'system', 'ok'],
    ]);
    expect(attempts[0].request_headers['webhook-id']).to.equal(d.eventId);
  });

  it('D12: SIN_RESPUESTA and EXPIRADA reach the generator; a direct assignment is pushed to the central’s oferta endpoint', async () => {
    const open = await offerIn(em(), gen, 'ABIERTA', undefined, { deadlineAt: new Date(Date.now() - 1000) });
    expect(await evaluateOffer(app.rt, open.uuid)).to.equal('no-response');
    await settled(open.uuid, 1);
    expect(await expireOffer(app.rt, open.uuid)).to.equal(true);
    await settled(open.uuid, 2);
    expect(rcv.calls.map((c) => [c.path, c.body.estado])).to.deep.equal([
      ['/estado', 'SIN_RESPUESTA'],
      ['/estado', 'EXPIRADA'],
    ]);

    rcv.calls.length = 0;
    const central = await makeProvider(em(), { name: 'Grúas Directas' });
    await em().execute(`update api_user set url_api = ?, api_endpoint = ?::jsonb, webhook_secret = ? where id = ?`, [
      rcv.url,
      JSON.stringify({ oferta: '/oferta-push' }),
      PLAIN,
      central.user.id,
    ]);
    const uuid = randomUUID();
    const res = await app.client.post('api/v3/asignacion-directa', {
      headers: { authorization: gen.auth },
      json: { uuid, tipoServicio: '1', latitudOrigen: 4.65, longitudOrigen: -74.08, dniPrestador: central.central.nit, telefonoCliente: '3001234567' },
    });
    expect(res.statusCode).to.equal(200);
    await settled(uuid, 1);
    const [push] = rcv.calls;
    expect(push.path).to.equal('/oferta-push');
    expect(push.method).to.equal('PUT');
    expect(push.body).to.include({ uuid, asignacionDirecta: true, codigoServicio: bodyOf(res).codigoServicio, codigoSolicitud: bodyOf(res).codigoSolicitud });
    expect(push.raw).to.not.include('3001234567');
    expect(verifyWith(PLAIN, 'raw')(push)).to.include({ uuid });
  });

  it('GET /webhooks/deliveries: the caller’s own only, filtered by uuid and state, paged; bad filters 400', async () => {
    const offer = await offerIn(em(), gen, 'ASIGNADA', prov);
    await progress(offer.uuid, 'EN_CAMINO');
    await settled(offer.uuid, 1);
    const mine = await app.client.get(`api/v3/webhooks/deliveries?uuid=${offer.uuid}`, { headers: { authorization: gen.auth } });
    expect(mine.statusCode).to.equal(200);
    const data = bodyOf(mine).data as { total: number; deliveries: Array<{ uuid: string; estado: string; attempts: unknown[]; requestBody: Record<string, unknown> }> };
    expect(data.total).to.equal(1);
    expect(data.deliveries[0]).to.include({ uuid: offer.uuid, estado: 'ok' });
    expect(data.deliveries[0].attempts).to.have.length(1);
    expect(data.deliveries[0].requestBody).to.include({ estado: 'EN_CAMINO' });
    const all = bodyOf(await app.client.get('api/v3/webhooks/deliveries?estado=ok', { headers: { authorization: gen.auth } })).data as { total: number };
    expect(all.total).to.be.greaterThan(1);
    const theirs = await app.client.get(`api/v3/webhooks/deliveries?uuid=${offer.uuid}`, { headers: { authorization: other.auth } });
    expect((bodyOf(theirs).data as { total: number }).total).to.equal(0);
    expect((await app.client.get('api/v3/webhooks/deliveries?estado=lost', { headers: { authorization: gen.auth } })).statusCode).to.equal(400);
    expect((await app.client.get('api/v3/webhooks/deliveries?page=0', { headers: { authorization: gen.auth } })).statusCode).to.equal(400);
    expect((await app.client.get('api/v3/webhooks/deliveries')).statusCode).to.equal(401);
  });

  it('resend by hand: an admin only, a finished delivery only, same webhook-id, recorded with the operator as actor', async () => {
    rcv.replies.push(500, 500, 500);
    await em().execute(`update api_user set url_api = ? where id = ?`, [rcv.url, gen.user.id]);
    const offer = await offerIn(em(), gen, 'ASIGNADA', prov);
    await progress(offer.uuid, 'EN_CAMINO');
    const [d] = await waitFor(async () => {
      const ds = await deliveriesOf(app.rt.orm.em, offer.uuid);
      return ds.length === 1 && ds[0].state === 'failed' ? ds : null;
    }, 15000);
    rcv.calls.length = 0;
    rcv.replies.length = 0;
    const operator = { username: 'ana', role: 'operator' };
    try {
      await resendDelivery(app.rt, { deliveryId: d.id, operator });
      expect.fail('an operator resent');
    } catch (err) {
      expect((err as { code: string }).code).to.equal('delivery.admin-only');
    }
    const out = await resendDelivery(app.rt, { deliveryId: d.id, operator: { username: 'root', role: 'admin' } });
    expect(out).to.include({ ok: true, statusCode: 200 });
    expect(rcv.calls).to.have.length(1);
    expect(rcv.calls[0].headers['webhook-id']).to.equal(d.eventId).and.equal(rcv.calls[0].headers['x-event-id']);
    expect(verifyWith(WHSEC)(rcv.calls[0])).to.include({ estado: 'EN_CAMINO' });
    const [last] = await em().execute<Array<{ actor: string; status_code: number }>>(`select actor, status_code from webhook_attempt where delivery_id = ? order by id desc limit 1`, [d.id]);
    expect(last).to.deep.equal({ actor: 'operator:root', status_code: 200 });
    // The tenant's own log says an operator resent it, never which one (issue 29 item 9).
    const own = await app.client.get(`api/v3/webhooks/deliveries?uuid=${offer.uuid}`, { headers: { authorization: gen.auth } });
    const ownAttempts = (bodyOf(own).data as { deliveries: Array<{ attempts: Array<{ actor: string }> }> }).deliveries[0].attempts;
    expect(ownAttempts.map((a) => a.actor).at(-1)).to.equal('operator');
    expect(ownAttempts.slice(0, -1).every((a) => a.actor === 'system')).to.equal(true);
    expect(JSON.stringify(bodyOf(own))).to.not.include('root');
    // the resend is its own attempt: the delivery's row keeps the system's outcome (issue 29 item 9)
    const [row] = await em().execute<Array<{ state: string }>>(`select state from webhook_delivery where id = ?`, [d.id]);
    expect(row.state).to.equal('failed');
    await em().execute(`update webhook_delivery set state = 'pending' where id = ?`, [d.id]);
    try {
      await resendDelivery(app.rt, { deliveryId: d.id, operator: { username: 'root', role: 'admin' } });
      expect.fail('resent a pending delivery');
    } catch (err) {
      expect((err as { code: string }).code).to.equal('delivery.in-flight');
    } finally {
      await em().execute(`update webhook_delivery set state = 'ok' where id = ?`, [d.id]);
    }
  });

  it('retention: attempts and finished deliveries older than the retention go, in batches; newer ones stay', async () => {
    const offer = await offerIn(em(), gen, 'ASIGNADA', prov);
    await progress(offer.uuid, 'EN_CAMINO');
    const [d] = await settled(offer.uuid, 1);
    const old = await offerIn(em(), gen, 'ASIGNADA', prov);
    await progress(old.uuid, 'EN_CAMINO');
    const [gone] = await settled(old.uuid, 1);
    await em().execute(`update webhook_delivery set created_at = now() - interval '31 days' where id = ?`, [gone.id]);
    await em().execute(`update webhook_attempt set at = now() - interval '31 days' where delivery_id = ?`, [gone.id]);
    const pruned = await pruneDeliveries(em(), 30, 1);
    expect(pruned.attempts).to.be.at.least(1);
    expect(pruned.deliveries).to.be.at.least(1);
    const left = await em().execute<Array<{ id: string }>>(`select id from webhook_delivery where id in (?)`, [[d.id, gone.id]]);
    expect(left.map((r) => r.id)).to.deep.equal([d.id]);
  });
});
