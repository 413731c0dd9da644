import { expect } from 'chai';
import { AUTH_MESSAGES } from '../../src/http/auth/index.js';
import { safeEqual, sha256Hex } from '../../src/auth/passwords.js';
import { resetDb } from '../helpers/db.js';
import { expectSystemEnvelope } from '../helpers/envelopes.js';
import { makeApiUser } from '../helpers/factories.js';
import { startApp, basic, type TestApp } from '../helpers/harness.js';

const raw = (pair: string) => `Basic ${Buffer.from(pair).toString('base64')}`;

describe('HTTP Basic (spec 5.1)', () => {
  let app: TestApp;
  const types = (authorization?: string) =>
    app.client.get('api/v3/types', { headers: authorization === undefined ? {} : { authorization } });

  before(async () => {
    app = await startApp();
    await resetDb(app.rt.orm);
  });
  after(async () => app.close());

  const cases: Array<[string, () => string | undefined]> = [
    ['the header is missing', () => undefined],
    ['the password is missing', () => raw('someone:')],
    ['the username is missing', () => raw(':secret')],
    ['there is no colon', () => raw('someone')],
    ['the scheme is not Basic', () => 'Bearer abc.def.ghi'],
    ['the base64 is not base64', () => 'Basic !!!'],
  ];
  for (const [why, header] of cases) {
    it(`401 "no credentials" when ${why}`, async () => {
      const res = await types(header());
      expect(res.statusCode).to.equal(401);
      expectSystemEnvelope(res.body, AUTH_MESSAGES.basicMissing);
    });
  }

  it('401 "not correct" for a wrong password', async () => {
    const { user } = await makeApiUser(app.rt.orm.em.fork());
    const res = await types(basic(user.username, 'wrong-password'));
    expect(res.statusCode).to.equal(401);
    expectSystemEnvelope(res.body, AUTH_MESSAGES.basicInvalid);
  });

  it('401 "not correct" for an unknown user', async () => {
    const res = await types(basic('nobody-at-all', 'whatever'));
    expect(res.statusCode).to.equal(401);
    expectSystemEnvelope(res.body, AUTH_MESSAGES.basicInvalid);
  });

  it('403 for an INACTIVO user with the right password', async () => {
    const { user, password } = await makeApiUser(app.rt.orm.em.fork(), { status: 'INACTIVO' });
    const res = await types(basic(user.username, password));
    expect(res.statusCode).to.equal(403);
    expectSystemEnvelope(res.body, AUTH_MESSAGES.basicInactive);
  });

  it('401 (not 403) for an INACTIVO user with a wrong password: nothing is revealed', async () => {
    const { user } = await makeApiUser(app.rt.orm.em.fork(), { status: 'INACTIVO' });
    const res = await types(basic(user.username, 'wrong-password'));
    expect(res.statusCode).to.equal(401);
    expectSystemEnvelope(res.body, AUTH_MESSAGES.basicInvalid);
  });

  it('403 when the endpoint is not among the user\'s', async () => {
    const { user, password } = await makeApiUser(app.rt.orm.em.fork(), { endpoints: ['/oferta', '/offer-responses'] });
    const res = await types(basic(user.username, password));
    expect(res.statusCode).to.equal(403);
    expectSystemEnvelope(res.body, AUTH_MESSAGES.basicForbidden);
  });

  it('200 when the endpoint is listed, with a password that contains a colon', async () => {
    const { user, password } = await makeApiUser(app.rt.orm.em.fork(), { endpoints: ['/types'], password: 'pa:ss:word' });
    const res = await types(basic(user.username, password));
    expect(res.statusCode).to.equal(200);
    expect(res.body).to.deep.equal([]);
  });

  it('compares digests in constant time and tells equal from different', () => {
    const d = sha256Hex('secret');
    expect(d).to.match(/^[0-9a-f]{64}$/);
    expect(safeEqual(d, sha256Hex('secret'))).to.equal(true);
    expect(safeEqual(d, sha256Hex('Secret'))).to.equal(false);
    expect(safeEqual(d, d.slice(1))).to.equal(false);
  });
});
