/**
 * Tracking abuse (issue 9, "Bad input and abuse"; decisions "Tracking
 * abuse"): one client cannot walk many expedientes. Code requests and code
 * checks, through the API and the customer page together, are limited per
 * client IP (TRACKING_LIMIT_IP, in Redis); tracking requests and codes are
 * pruned once no limit reads them.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { pruneTracking } from '../../src/domain/tracking/codes.js';
import { resetDb } from '../helpers/db.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { signedCall } from '../helpers/integrity.js';
import { bodyOf } from '../helpers/ops.js';
import { makeGenerator, makeOffer, makeServiceType } from '../helpers/factories.js';

const SECRET = 'integrity-secret-of-the-tests-0123456789';

describe('tracking abuse (issue 9)', () => {
  let app: TestApp;

  before(async () => {
    // A queue prefix of its own: the limit's counter is per prefix and client IP, and every suite calls from 127.0.0.1.
    app = await startApp({ env: { INTEGRITY_SECRET: SECRET, TRACKING_LIMIT_IP: '3', TRACKING_LIMIT_WINDOW_S: '600', QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_trk_${randomUUID().slice(0, 8)}` } });
    await resetDb(app.rt.orm);
    await makeServiceType(app.rt.orm.em.fork(), { id: 1 });
  });
  after(async () => app.close());

  const em = () => app.rt.orm.em.fork();
  const call = (path: string, json: unknown) => signedCall(app.client, SECRET, { path: `api/v3/${path}`, json });
  const requests = async () => Number((await em().execute<Array<{ n: string }>>(`select count(*) as n from tracking_request`))[0].n);

  it('answers 429 with Retry-After once one client has made TRACKING_LIMIT_IP code requests and checks, on the API and the page alike, and records nothing more', async () => {
    const before = await requests();
    // three different expedientes: the per-expediente limit never applies
    expect((await call('tracking/requestCode', { expediente: 'SV-AAAAA2', telefono: '3001112233' })).statusCode).to.equal(200);
    expect((await call('tracking/requestCode', { expediente: 'SV-AAAAA3', telefono: '3001112233' })).statusCode).to.equal(200);
    expect((await call('tracking/track', { expediente: 'SV-AAAAA4', code: '123456' })).statusCode).to.equal(401);

    for (const [path, json] of [
      ['tracking/requestCode', { expediente: 'SV-AAAAA5', telefono: '3001112233' }],
      ['tracking/track', { expediente: 'SV-AAAAA6', code: '123456' }],
    ] as const) {
      const res = await call(path, json);
      expect(res.statusCode, path).to.equal(429);
      const b = bodyOf(res);
      expect(b).to.include({ status: false, msg: 'DEMASIADAS SOLICITUDES DE SEGUIMIENTO DESDE ESTA CONEXIÓN; INTENTE DE NUEVO MÁS TARDE' });
      expect(Number(res.headers['retry-after'])).to.be.within(1, 600);
    }
    // the customer page counts against the same limit
    const page = await app.client.post('seguimiento/codigo', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'expediente=SV-AAAAA7&telefono=3001112233',
      responseType: 'text',
    });
    expect(page.statusCode).to.equal(429);
    expect(String(page.body)).to.include('DEMASIADAS SOLICITUDES DE SEGUIMIENTO DESDE ESTA CONEXIÓN');
    // the two requests that passed were recorded; none of the refused ones
    expect(await requests()).to.equal(before + 2);
  });

  it('prunes tracking requests older than a day and codes expired for more than a day, and keeps the rest', async () => {
    await em().execute(`delete from tracking_request; delete from tracking_code`);
    await em().execute(
      `insert into tracking_request (expediente, matched, at) values ('OLD-1', false, now() - interval '25 hours'), ('NEW-1', false, now() - interval '23 hours')`,
    );
    const gen = await makeGenerator(em());
    const offer = await makeOffer(em(), gen.user);
    await em().execute(
      `insert into tracking_code (offer_uuid, code_hash, expires_at) values (?, repeat('a', 64), now() - interval '25 hours'), (?, repeat('b', 64), now() - interval '1 hour')`,
      [offer.uuid, offer.uuid],
    );
    const pruned = await pruneTracking(em(), 1);
    expect(pruned).to.deep.equal({ requests: 1, codes: 1 });
    const left = await em().execute<Array<{ expediente: string }>>(`select expediente from tracking_request`);
    expect(left.map((r) => r.expediente)).to.deep.equal(['NEW-1']);
    const codes = await em().execute<Array<{ h: string }>>(`select left(code_hash, 1) as h from tracking_code`);
    expect(codes.map((r) => r.h)).to.deep.equal(['b']);
  });
});

describe('the customer page’s forms and text PostgreSQL cannot store (D19, issue 29 item 9)', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({ env: { INTEGRITY_SECRET: SECRET } });
  });
  after(async () => app.close());

  for (const [path, body] of [
    ['seguimiento/codigo', 'expediente=SV-AA%00AA2&telefono=3001112233'],
    ['seguimiento/codigo', 'expediente=SV-AAAAA2&telefono=300%00111'],
    ['seguimiento/verificar', 'expediente=SV-AAAAA2&code=12%003456'],
    ['seguimiento/verificar', 'expediente=SV-AAAAA2&code=123456&x%00=1'],
  ] as const) {
    it(`POST /${path} with ${body}: the form's 400 page, never a 500`, async () => {
      const res = await app.client.post(path, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body, responseType: 'text' });
      expect(res.statusCode).to.equal(400);
      expect(String(res.headers['content-type'])).to.match(/^text\/html/);
      expect(app.logs.filter((l) => Number(l.level) >= 50)).to.deep.equal([]);
    });
  }
});
