/**
 * Issue 31 item 4 (D23): POST /api/v3/webhooks/test. A generator (Basic) and a
 * central (x-apikey) each send themselves a sample of every notification they
 * receive; a real local receiver checks the Standard Webhooks signature with
 * the `standardwebhooks` package, the `x-prueba` header and `prueba: true`;
 * the answer gives the receiver's status, latency and whether it was a 200;
 * the delivery log keeps it; a profile without the endpoint is a 400 naming
 * the missing `api_endpoint` key.
 */
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { makeApiUser } from '../helpers/factories.js';
import type { TestApp } from '../helpers/harness.js';
import { bodyOf, startOps } from '../helpers/ops.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

const WHSEC = `whsec_${Buffer.from('thirty-two bytes of test secret!').toString('base64')}`;
const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

const CENTRAL_OUTBOUND_KEY = 'outbound-key-of-the-test-central-01';

describe('webhooks: the test mode for integrators (issue 31 item 4, D23)', () => {
  let app: TestApp;
  let rcv: Receiver;
  let genAuth: string;
  let bareAuth: string;
  let centralKey: string;

  before(async () => {
    rcv = await startReceiver();
    const suite = await startOps();
    app = suite.app;
    const gen = await makeApiUser(suite.em, {
      urlApi: `${rcv.url}/base/`,
      apiEndpoint: { respuesta: '/respuesta', estado: 'estado' },
      webhookSecret: WHSEC,
      endpoints: ['/oferta'],
    });
    genAuth = basic(gen.user.username, gen.password);
    const bare = await makeApiUser(suite.em, { urlApi: rcv.url, apiEndpoint: { respuesta: '/respuesta' } });
    bareAuth = basic(bare.user.username, bare.password);
    centralKey = 'central-test-mode-key-0123456789';
    await makeApiUser(suite.em, {
      apiKey: centralKey,
      outboundKey: CENTRAL_OUTBOUND_KEY,
      urlApi: rcv.url,
      apiEndpoint: { oferta: '/ofertas', novedad: '/novedades' },
      webhookSecret: WHSEC,
      endpoints: ['/aceptacion'],
    });
  });
  after(async () => {
    await app.close();
    await rcv.close();
  });
  beforeEach(() => {
    rcv.calls.length = 0;
    rcv.replies.length = 0;
  });

  const test = (headers: Record<string, string>, json: unknown) => app.client.post('api/v3/webhooks/test', { headers, json });
  const verify = (call: { raw: string; headers: Record<string, unknown> }) => new Webhook(WHSEC).verify(call.raw, call.headers as Record<string, string>) as Record<string, unknown>;

  for (const [tipo, path] of [
    ['respuesta', '/base/respuesta'],
    ['estado', '/base/estado'],
  ] as const) {
    it(`a generator (Basic) tests ${tipo}: signed sample at ${path}, x-prueba and prueba: true, status, latency and ok in the answer`, async () => {
      const res = await test({ authorization: genAuth }, { tipo });
      expect(res.statusCode, JSON.stringify(res.body)).to.equal(200);
      const data = bodyOf(res).data as Record<string, unknown>;
      expect(data).to.include({ tipo, statusCode: 200, ok: true, error: null, url: `${rcv.url}/base/${tipo}` });
      expect(data.latenciaMs).to.be.a('number').and.at.least(0);
      expect(rcv.calls).to.have.length(1);
      const [call] = rcv.calls;
      expect(call.method).to.equal('PUT');
      expect(call.path).to.equal(path);
      expect(call.headers['x-prueba']).to.equal('true');
      expect(call.headers['webhook-id']).to.equal(data.eventId);
      const body = verify(call);
      expect(body.prueba).to.equal(true);
      if (tipo === 'respuesta') expect(body).to.include.keys('id', 'dniPrestador', 'tiempoLlegadaSitio');
      else expect(body).to.include.keys('id', 'estado', 'fecha', 'detalle');
    });
  }

  for (const [tipo, path] of [
    ['oferta', '/ofertas'],
    ['novedad', '/novedades'],
  ] as const) {
    it(`a central (x-apikey) tests ${tipo}: signed sample at ${path}`, async () => {
      const res = await test({ 'x-apikey': centralKey }, { tipo });
      expect(res.statusCode, JSON.stringify(res.body)).to.equal(200);
      expect(bodyOf(res).data).to.include({ tipo, statusCode: 200, ok: true });
      expect(rcv.calls.map((c) => c.path)).to.deep.equal([path]);
      expect(verify(rcv.calls[0]).prueba).to.equal(true);
      // D24: the profile's own outbound key, never the key it called with
      expect(rcv.calls[0].headers['x-apikey']).to.equal(CENTRAL_OUTBOUND_KEY);
    });
  }

  it('a receiver answering 202 or 500: its status in the answer, ok false (only a 200 counts), the call still 200', async () => {
    rcv.replies.push(202, 500);
    const first = bodyOf(await test({ authorization: genAuth }, { tipo: 'estado' })).data as Record<string, unknown>;
    const second = bodyOf(await test({ authorization: genAuth }, { tipo: 'estado' })).data as Record<string, unknown>;
    expect([first.statusCode, first.ok, second.statusCode, second.ok]).to.deep.equal([202, false, 500, false]);
  });

  it('is in the delivery log: kind test, its request with prueba, the attempt with x-prueba and the status', async () => {
    const sent = bodyOf(await test({ authorization: genAuth }, { tipo: 'estado' })).data as Record<string, unknown>;
    const log = await app.client.get('api/v3/webhooks/deliveries', { headers: { authorization: genAuth } });
    expect(log.statusCode).to.equal(200);
    const entries = (bodyOf(log).data as { deliveries: Array<Record<string, unknown>> }).deliveries;
    const entry = entries.find((d) => d.id === sent.deliveryId);
    expect(entry, 'the test delivery in the log').to.not.equal(undefined);
    expect(entry).to.include({ kind: 'test', estado: 'ok', statusCode: 200, uuid: null });
    expect((entry!.requestBody as Record<string, unknown>).prueba).to.equal(true);
    const [attempt] = entry!.attempts as Array<{ requestHeaders: Record<string, string>; statusCode: number }>;
    expect(attempt.requestHeaders['x-prueba']).to.equal('true');
    expect(attempt.statusCode).to.equal(200);
  });

  it('without the endpoint in the profile: 400 naming the missing api_endpoint key, nothing sent', async () => {
    const res = await test({ authorization: bareAuth }, { tipo: 'estado' });
    expect(res.statusCode).to.equal(400);
    expect(bodyOf(res)).to.deep.equal({ status: false, msg: "NO HAY ENDPOINT CONFIGURADO PARA 'estado': FALTA api_endpoint.estado EN EL PERFIL DEL USUARIO" });
    const central = await test({ 'x-apikey': centralKey }, { tipo: 'respuesta' });
    expect(central.statusCode).to.equal(400);
    expect(bodyOf(central).msg).to.contain('api_endpoint.respuesta');
    expect(rcv.calls).to.have.length(0);
  });

  it('an invalid tipo or no credentials: 400 / 401, nothing sent', async () => {
    const bad = await test({ authorization: genAuth }, { tipo: 'todo' });
    expect(bad.statusCode).to.equal(400);
    expect(bodyOf(bad)).to.deep.equal({ status: false, msg: "EL CAMPO 'tipo' DEBE SER respuesta, estado, novedad U oferta" });
    expect((await test({}, { tipo: 'estado' })).statusCode).to.equal(401);
    expect((await test({ 'x-apikey': 'not-a-key-not-a-key-000' }, { tipo: 'estado' })).statusCode).to.equal(401);
    expect(rcv.calls).to.have.length(0);
  });

  it('is in the OpenAPI document, with both credentials and its 400', async () => {
    const doc = bodyOf(await app.client.get('api/v3/openapi.json')) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const op = doc.paths['/api/v3/webhooks/test'].post;
    expect(op.security).to.deep.equal([{ basicAuth: [] }, { apiKey: [] }]);
    expect(op.responses).to.include.keys('200', '400', '401');
  });
});
