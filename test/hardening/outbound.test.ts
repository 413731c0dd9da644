/**
 * Issue 8.4: what outside peers send back is made storable before it is written. A webhook reply
 * with a NUL or in UTF-16 (any bytes) is recorded on its delivery row, so the 6.1 outcome is right
 * (a 200 keeps the offer ACEPTADA) and a state notification is not resent; place names from the
 * geocoders with a NUL or a lone surrogate are stored with U+FFFD.
 */
import { REPLY_STORED_CHARS } from '../../src/webhooks/dispatch.js';
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { Offer, WebhookDelivery } from '../../src/db/entities/index.js';
import { makeServiceType } from '../helpers/factories.js';
import { startCleanApp, type TestApp } from '../helpers/harness.js';
import { acceptanceBody, distributeTo, makeGenerator, makeResponder, offerBody } from '../helpers/offers.js';
import { waitFor } from '../helpers/wait.js';

interface Received {
  path: string;
  body: string;
}

/** A real local receiver: answers each path with the bytes `replies` gives it (200), and records every call. */
async function receiver(replies: Record<string, { bytes: Buffer; type: string }>): Promise<{ server: Server; url: string; calls: Received[] }> {
  const calls: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      calls.push({ path: req.url ?? '', body });
      const reply = replies[req.url ?? ''] ?? { bytes: Buffer.from('ok'), type: 'text/plain' };
      res.writeHead(200, { 'content-type': reply.type, 'content-length': reply.bytes.length });
      res.end(reply.bytes);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

const isStorable = (s: string | null | undefined) => s === null || s === undefined || (!s.includes('\u0000') && s.isWellFormed());

describe('hardening: outbound replies and geocoder results are stored (issue 8.4)', function () {
  this.timeout(30000);
  let app: TestApp;
  const fork = () => app.rt.orm.em.fork();

  before(async () => {
    // a window long enough for the answer to land in it on a loaded machine (300 ms closed it unanswered now and then)
    app = await startCleanApp({ env: { OFFER_RESPONSE_WINDOW_MS: '2000', GEOCODER: 'nominatim', NOMINATIM_URL: 'http://nominatim.test', GEOCODER_TIMEOUT_MS: '1000' } });
    await makeServiceType(fork(), { id: 1 });
  });
  afterEach(() => nock.cleanAll());
  after(async () => {
    await app?.close();
  });

  it('a 200 acceptance reply with a NUL and UTF-16 state replies are recorded; the offer stays ACEPTADA and nothing is resent', async () => {
    const rx = await receiver({
      '/respuesta': { bytes: Buffer.from('{"ok":true}\u0000\u0000basura', 'utf8'), type: 'application/json' },
      '/estado': { bytes: Buffer.from('recibido ✓ 🚗', 'utf16le'), type: 'text/plain; charset=utf-16le' },
    });
    try {
      const gen = await makeGenerator(fork(), { urlApi: rx.url, apiEndpoint: { respuesta: '/respuesta', estado: '/estado' } });
      const central = await makeResponder(fork());
      const body = offerBody();
      const uuid = body.uuid as string;
      expect((await app.client.post('api/v3/oferta', { json: body, headers: { authorization: gen.auth } })).statusCode).to.equal(200);
      await distributeTo(app.rt.orm.em.fork(), uuid, central); // D20: only a recipient answers
      expect((await app.client.put('api/v3/aceptacion', { json: acceptanceBody(uuid, central), headers: { 'x-apikey': central.key } })).statusCode).to.equal(200);

      const acceptance = await waitFor(
        async () => {
          const d = await fork().findOne(WebhookDelivery, { offer: uuid, kind: 'acceptance' });
          return d && d.state !== 'pending' && d.state !== 'sending' ? d : null;
        },
        10000,
        'the acceptance delivery settled',
      );
      expect(acceptance).to.include({ state: 'ok', statusCode: 200, attempts: 1 });
      expect(acceptance.replyBody).to.equal('{"ok":true}\ufffd\ufffdbasura');
      expect((await fork().findOneOrFail(Offer, { uuid })).state).to.equal('ACEPTADA');

      expect((await app.client.post('api/v3/asignacion', { json: { uuid }, headers: { authorization: gen.auth } })).statusCode).to.equal(200);
      await fork().nativeUpdate('ApiUser', { id: central.user.id }, { endpoints: ['*'] });
      expect((await app.client.put('api/v3/estado-servicio', { json: { id: uuid, estado: 'EN_CAMINO' }, headers: { 'x-apikey': central.key } })).statusCode).to.equal(200);

      const states = await waitFor(
        async () => {
          const ds = await fork().find(WebhookDelivery, { offer: uuid, kind: 'state' }, { orderBy: { createdAt: 'asc' } });
          return ds.length === 2 && ds.every((d) => d.state === 'ok') ? ds : null;
        },
        10000,
        'two state notifications delivered',
      );
      for (const d of states) {
        expect(d).to.include({ statusCode: 200, attempts: 1 });
        expect(isStorable(d.replyBody)).to.equal(true);
        expect(d.replyBody).to.contain('\ufffd');
      }
      expect(rx.calls.filter((c) => c.path === '/estado')).to.have.length(2);
      expect(rx.calls.filter((c) => c.path === '/respuesta')).to.have.length(1);
    } finally {
      rx.server.close();
    }
  });

  it('a reply cut at the stored length in the middle of an emoji is stored well formed', async () => {
    const rx = await receiver({ '/respuesta': { bytes: Buffer.from(`${'a'.repeat(REPLY_STORED_CHARS - 1)}🚗🚗`, 'utf8'), type: 'text/plain' } });
    try {
      const gen = await makeGenerator(fork(), { urlApi: rx.url, apiEndpoint: { respuesta: '/respuesta' } });
      const central = await makeResponder(fork());
      const body = offerBody();
      const uuid = body.uuid as string;
      await app.client.post('api/v3/oferta', { json: body, headers: { authorization: gen.auth } });
      await distributeTo(app.rt.orm.em.fork(), uuid, central); // D20: only a recipient answers
      await app.client.put('api/v3/aceptacion', { json: acceptanceBody(uuid, central), headers: { 'x-apikey': central.key } });
      const d = await waitFor(
        async () => {
          const row = await fork().findOne(WebhookDelivery, { offer: uuid, kind: 'acceptance' });
          return row?.state === 'ok' ? row : null;
        },
        10000,
        'the acceptance delivered',
      );
      expect(d.replyBody).to.have.length(REPLY_STORED_CHARS);
      expect(isStorable(d.replyBody)).to.equal(true);
    } finally {
      rx.server.close();
    }
  });

  it('place names from Nominatim with a NUL or a lone surrogate are stored with U+FFFD', async () => {
    const gen = await makeGenerator(fork());
    nock('http://nominatim.test')
      .get('/search')
      .query(true)
      .reply(200, [{ lat: '4.65', lon: '-74.08', address: { city: 'Bogo\u0000tá', state: `Cundinamarca\ud800${'x'.repeat(300)}` } }]);
    const body = offerBody({ latitudOrigen: undefined, longitudOrigen: undefined, direccionOrigen: 'Calle 100 # 15-20 sin coordenadas' });
    const res = await app.client.post('api/v3/oferta', { json: body, headers: { authorization: gen.auth } });
    expect(res.statusCode, JSON.stringify(res.body)).to.equal(200);
    const offer = await fork().findOneOrFail(Offer, { uuid: body.uuid as string });
    expect(offer.ciudad).to.equal('Bogo\ufffdtá');
    expect(offer.departamento?.startsWith('Cundinamarca\ufffd')).to.equal(true);
    expect(offer.departamento).to.have.length(255);
  });
});
