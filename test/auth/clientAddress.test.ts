/**
 * The client's address (D24, issue 29.1): TRUST_PROXY_HOPS entries from the
 * right of X-Forwarded-For, only valid IP addresses, IPv6 by /64, limiter keys
 * hashed; one function for HTTP and the socket upgrade; an address's failure
 * limit never blocks a credential that is right.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { clientAddress, limitKey, validAddress } from '../../src/auth/clientAddress.js';
import { AUTH_FAIL_MESSAGE } from '../../src/auth/failLimit.js';
import { loadConfig, proxyHopsWarning } from '../../config/index.js';
import { expectSystemEnvelope } from '../helpers/envelopes.js';
import { makeApiUser } from '../helpers/factories.js';
import { basic, startApp, type TestApp } from '../helpers/harness.js';
import { connect, refusal, wsUrl } from '../helpers/sockets.js';

const trusted = (hops = 1) => ({ trustProxy: true, trustProxyHops: hops });
const fresh = () => `${1 + (randomBytes(1)[0] % 223)}.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
/** A Redis prefix of this test's own. */
const prefix = () => `${process.env.QUEUE_PREFIX}_ca${randomBytes(3).toString('hex')}`;

describe('the client address (D24)', () => {
  describe('clientAddress', () => {
    it('is the entry TRUST_PROXY_HOPS from the right, never the left-most the client wrote', () => {
      expect(clientAddress('6.6.6.6, 203.0.113.5', '10.0.0.1', trusted())).to.equal('203.0.113.5');
      expect(clientAddress('6.6.6.6, 198.51.100.1, 10.0.0.9', '10.0.0.1', trusted(2))).to.equal('198.51.100.1');
      expect(clientAddress(['6.6.6.6', '203.0.113.5'], '10.0.0.1', trusted())).to.equal('203.0.113.5');
      // fewer entries than hops: every entry was written by our proxies, the left-most is the client
      expect(clientAddress('198.51.100.1', '10.0.0.1', trusted(2))).to.equal('198.51.100.1');
    });

    it('takes only a valid IP address; anything else gives the socket address', () => {
      for (const junk of ['junk', '127.1', '0x7f.0.0.1', '1.2.3.4:80', '', ' ', 'x'.repeat(15000), '1.2.3.4.5', '::g']) {
        expect(clientAddress(`1.1.1.1, ${junk}`, '10.0.0.1', trusted()), junk.slice(0, 20)).to.equal('10.0.0.1');
      }
      expect(clientAddress('::ffff:203.0.113.8', '10.0.0.1', trusted())).to.equal('203.0.113.8');
      expect(clientAddress('2001:DB8:0:0::1', '10.0.0.1', trusted())).to.equal('2001:db8::1');
      expect(validAddress('fe80::1%eth0')).to.equal('fe80::1');
    });

    it('ignores X-Forwarded-For without TRUST_PROXY', () => {
      expect(clientAddress('203.0.113.5', '::ffff:10.0.0.1', { trustProxy: false, trustProxyHops: 1 })).to.equal('10.0.0.1');
    });

    it('limit keys: IPv6 by its /64, every key 32 hex characters whatever the input', () => {
      expect(limitKey('2001:db8:1:2::1')).to.equal(limitKey('2001:db8:1:2:ffff:ffff:ffff:ffff'));
      expect(limitKey('2001:db8:1:2::1')).to.not.equal(limitKey('2001:db8:1:3::1'));
      expect(limitKey('203.0.113.1')).to.not.equal(limitKey('203.0.113.2'));
      for (const k of [limitKey('203.0.113.1'), limitKey('y'.repeat(16384))]) expect(k).to.match(/^[0-9a-f]{32}$/);
    });

    it('TRUST_PROXY_HOPS defaults to 1; production with TRUST_PROXY and no hops says so at start', () => {
      const base = { NODE_ENV: 'production', JWT_SECRET: 'j'.repeat(32), INTEGRITY_SECRET: 'i'.repeat(32), PUBLIC_ORIGIN: 'https://seguimiento.example.com', SMS_PROVIDER: 'http', SMS_HTTP_URL: 'https://sms.example.com/send', TRUST_PROXY: 'true' };
      const unset = loadConfig(base);
      expect(unset.trustProxyHops).to.equal(1);
      expect(proxyHopsWarning(unset)).to.match(/TRUST_PROXY_HOPS/);
      expect(proxyHopsWarning(loadConfig({ ...base, TRUST_PROXY_HOPS: '2' }))).to.equal(null);
      expect(proxyHopsWarning(loadConfig({ ...base, NODE_ENV: 'development' }))).to.equal(null);
      expect(() => loadConfig({ TRUST_PROXY_HOPS: '0' })).to.throw(/TRUST_PROXY_HOPS/);
    });
  });

  describe('the limits', function () {
    this.timeout(60000);
    let app: TestApp | undefined;
    afterEach(async () => {
      await app?.close();
      app = undefined;
    });

    it('a fresh X-Forwarded-For per request cannot escape the failure limit (HTTP and socket upgrade alike)', async () => {
      app = await startApp({ env: { QUEUE_PREFIX: prefix(), TRUST_PROXY: 'true', AUTH_FAIL_LIMIT_IP: '3', AUTH_FAIL_LIMIT_ID: '1000' } });
      const junk = (i: number) => ({ authorization: basic(`nobody-${i}`, 'x'), 'x-forwarded-for': `${fresh()}, 203.0.113.77` });
      for (let i = 1; i <= 3; i++) expect((await app.client.get('api/v3/types', { headers: junk(i) })).statusCode, `attempt ${i}`).to.equal(401);
      const refused = await app.client.get('api/v3/types', { headers: junk(4) });
      expect(refused.statusCode).to.equal(429);
      expectSystemEnvelope(refused.body, AUTH_FAIL_MESSAGE);
      const upgrade = await refusal(wsUrl(app.url), { headers: junk(5) });
      expect(upgrade.status).to.equal(429);
      // the neighbour of the same /64 shares an IPv6 client's bucket
      const v6 = (addr: string, i: number) => ({ authorization: basic(`v6-${i}`, 'x'), 'x-forwarded-for': `${fresh()}, ${addr}` });
      for (let i = 1; i <= 3; i++) await app.client.get('api/v3/types', { headers: v6(`2001:db8:7:7::${i}`, i) });
      expect((await app.client.get('api/v3/types', { headers: v6('2001:db8:7:7:abcd::1', 4) })).statusCode).to.equal(429);
      expect((await app.client.get('api/v3/types', { headers: v6('2001:db8:7:8::1', 5) })).statusCode).to.equal(401);
    });

    it('a fresh X-Forwarded-For per request cannot escape the operator login limit', async () => {
      app = await startApp({ env: { QUEUE_PREFIX: prefix(), TRUST_PROXY: 'true', LOGIN_RATE_LIMIT: '3' } });
      const attempt = () =>
        app!.client.post('api/v3/users/login', { json: { username: 'nobody', password: 'x' }, headers: { 'x-forwarded-for': `${fresh()}, 198.51.100.3` } });
      for (let i = 1; i <= 3; i++) expect((await attempt()).statusCode).to.equal(401);
      expect((await attempt()).statusCode).to.equal(429);
    });

    it('a 15 KB X-Forwarded-For does not write a 15 KB Redis key: every limiter key is short', async () => {
      const p = prefix();
      app = await startApp({ env: { QUEUE_PREFIX: p, TRUST_PROXY: 'true' } });
      const huge = `${'z'.repeat(7000)},${'9'.repeat(7000)}`;
      const headers = { authorization: basic('nobody', 'x'), 'x-forwarded-for': huge, 'x-apikey': 'k' };
      expect((await app.client.get('api/v3/types', { headers })).statusCode).to.equal(401);
      expect((await app.client.put('api/v3/posicion-tecnico', { headers, json: {} })).statusCode).to.equal(401);
      expect((await app.client.post('api/v3/users/login', { json: { username: 'u'.repeat(128), password: 'x' }, headers })).statusCode).to.equal(401);
      const keys = await app.rt.redis.keys(`${p}-*`);
      expect(keys.length).to.be.greaterThan(3);
      for (const k of keys) expect(k.length, k.slice(0, 60)).to.be.below(160);
    });

    it('TRUST_PROXY=false behind a proxy: junk attempts block the shared address, never a tenant whose credential is right', async () => {
      app = await startApp({ env: { QUEUE_PREFIX: prefix(), AUTH_FAIL_LIMIT_IP: '5', AUTH_FAIL_LIMIT_ID: '1000' } });
      const { user, password } = await makeApiUser(app.rt.orm.em.fork());
      for (let i = 1; i <= 5; i++) {
        expect((await app.client.get('api/v3/types', { headers: { authorization: basic(`junk-${i}`, 'x') } })).statusCode).to.equal(401);
      }
      const junk = await app.client.get('api/v3/types', { headers: { authorization: basic('junk-6', 'x') } });
      expect(junk.statusCode).to.equal(429);
      // the address is blocked: the right credential still passes, HTTP and socket alike
      expect((await app.client.get('api/v3/types', { headers: { authorization: basic(user.username, password) } })).statusCode).to.equal(200);
      const { user: gen, password: genPw } = await makeApiUser(app.rt.orm.em.fork(), { endpoints: ['/oferta'] });
      const upgrade = await refusal(wsUrl(app.url), { headers: { authorization: basic(gen.username, 'wrong') } });
      expect(upgrade.status).to.equal(429);
      const socket = await connect(wsUrl(app.url), { headers: { authorization: basic(gen.username, genPw) } });
      expect(socket.socketId).to.be.a('string').and.not.equal('');
      await socket.close();
      // a wrong password from the blocked address is counted and answered 429
      const wrong = await app.client.get('api/v3/types', { headers: { authorization: basic(user.username, 'guess') } });
      expect(wrong.statusCode).to.equal(429);
      expectSystemEnvelope(wrong.body, AUTH_FAIL_MESSAGE);
    });

    it('a blocked address writes no key per name it tries: unknown names and keys count on the address alone', async () => {
      const p = prefix();
      app = await startApp({ env: { QUEUE_PREFIX: p, AUTH_FAIL_LIMIT_IP: '3', AUTH_FAIL_LIMIT_ID: '1000' } });
      for (let i = 1; i <= 3; i++) await app.client.get('api/v3/types', { headers: { authorization: basic(`junk-${i}`, 'x') } });
      const before = (await app.rt.redis.keys(`${p}-*`)).length;
      for (let i = 4; i <= 23; i++) {
        expect((await app.client.get('api/v3/types', { headers: { authorization: basic(`junk-${i}`, 'x') } })).statusCode).to.equal(429);
        expect((await app.client.put('api/v3/posicion-tecnico', { headers: { 'x-apikey': `k-${i}` }, json: {} })).statusCode).to.equal(429);
      }
      expect((await app.rt.redis.keys(`${p}-*`)).length).to.equal(before);
    });

    it('guesses from a trusted address stay bounded: its own failures for the identity block it (the pair limit)', async () => {
      app = await startApp({ env: { QUEUE_PREFIX: prefix(), AUTH_FAIL_LIMIT_IP: '2', AUTH_FAIL_LIMIT_ID: '3' } });
      const { user, password } = await makeApiUser(app.rt.orm.em.fork());
      const as = (pw: string) => app!.client.get('api/v3/types', { headers: { authorization: basic(user.username, pw) } });
      expect((await as(password)).statusCode).to.equal(200);
      expect((await as('g1')).statusCode).to.equal(401);
      expect((await as('g2')).statusCode).to.equal(401);
      expect((await as('g3')).statusCode).to.equal(429); // over the address's limit: a wrong one is 429
      expect((await as(password)).statusCode).to.equal(429); // three failures of this pair: even the right one waits
    });
  });
});
