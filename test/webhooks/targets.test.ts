/**
 * Outbound targets (decisions "Hardening: security", SSRF): tenants' URLs may
 * not reach loopback, private, link-local or metadata addresses unless the
 * operator allows them; checked at provisioning and after DNS resolution at
 * send time. And what of a generator's reply is relayed to a central (D4c).
 */
import { expect } from 'chai';
import nock from 'nock';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../config/index.js';
import { Offer, WebhookDelivery } from '../../src/db/entities/index.js';
import { dispatchAcceptance, planAcceptanceNotification } from '../../src/domain/offers/selection/acceptanceNotification.js';
import { createRuntime, type Runtime } from '../../src/main/runtime.js';
import { provision } from '../../src/provisioning/index.js';
import { RELAY_MAX_CHARS, relayableReply } from '../../src/webhooks/relay.js';
import { sendWebhook } from '../../src/webhooks/send.js';
import { refusedUrl, targetPolicy, type Resolver } from '../../src/webhooks/targets.js';
import { resetDb } from '../helpers/db.js';
import type { TestApp } from '../helpers/harness.js';
import { offerIn, respond, startOps, type Generator, type Provider } from '../helpers/ops.js';
import { exampleDocument } from '../helpers/provisioning.js';

const guarded = targetPolicy({ allowPrivate: false, allowHosts: [] });
const open = targetPolicy({ allowPrivate: true, allowHosts: [] });

/** A local receiver counting the requests that reach it. */
async function receiver(): Promise<{ server: Server; port: number; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    req.resume();
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, hits: () => hits };
}

describe('outbound targets (SSRF)', () => {
  it('refuses loopback, private, link-local, metadata and IPv4-mapped addresses and loopback names; allows public ones', () => {
    const refused = [
      'http://127.0.0.1',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:10.0.0.1]',
      'http://[::ffff:7f00:1]:8080/x',
      'http://[::1]/',
      'http://10.1.2.3',
      'http://172.16.0.1',
      'https://192.168.1.10',
      'http://100.100.100.200',
      'http://[fd00:ec2::254]',
      'http://[fe80::1]',
      'http://0.0.0.0',
      'http://0x7f.1/',
      'http://localhost:4010',
      'http://api.localhost',
      'ftp://example.com',
    ];
    for (const url of refused) expect(refusedUrl(guarded, url), url).to.be.a('string');
    for (const url of ['https://hooks.example.com/x', 'http://8.8.8.8', 'http://[2001:4860:4860::8888]']) {
      expect(refusedUrl(guarded, url), url).to.equal(null);
    }
    for (const url of refused.slice(0, -1)) expect(refusedUrl(open, url), url).to.equal(null);
    const listed = targetPolicy({ allowPrivate: false, allowHosts: ['10.0.0.0/8', 'hooks.internal', '192.168.1.10'] });
    for (const url of ['http://10.1.2.3', 'http://[::ffff:10.0.0.1]', 'http://hooks.internal:8080', 'https://192.168.1.10']) {
      expect(refusedUrl(listed, url), url).to.equal(null);
    }
    expect(refusedUrl(listed, 'http://127.0.0.1')).to.be.a('string');
  });

  it('is on outside development and test unless OUTBOUND_ALLOW_PRIVATE says otherwise; a bad OUTBOUND_ALLOW_HOSTS stops the start', () => {
    const secrets = { JWT_SECRET: 'x'.repeat(32), INTEGRITY_SECRET: 'y'.repeat(32), PUBLIC_ORIGIN: 'https://seguimiento.example.com', SMS_PROVIDER: 'http', SMS_HTTP_URL: 'https://sms.example.com/send' };
    expect(loadConfig({ NODE_ENV: 'production', ...secrets }).outboundAllowPrivate).to.equal(false);
    expect(loadConfig({ NODE_ENV: 'production', OUTBOUND_ALLOW_PRIVATE: 'true', ...secrets }).outboundAllowPrivate).to.equal(true);
    expect(loadConfig({ NODE_ENV: 'test' }).outboundAllowPrivate).to.equal(true);
    expect(loadConfig({ NODE_ENV: 'development' }).outboundAllowPrivate).to.equal(true);
    expect(loadConfig({ NODE_ENV: 'test', OUTBOUND_ALLOW_HOSTS: ' hooks.internal, 10.0.0.0/8 ' }).outboundAllowHosts).to.deep.equal([
      'hooks.internal',
      '10.0.0.0/8',
    ]);
    expect(() => loadConfig({ NODE_ENV: 'test', OUTBOUND_ALLOW_HOSTS: 'http://x/' })).to.throw(/OUTBOUND_ALLOW_HOSTS is invalid/);
  });

  describe('at provisioning', () => {
    let rt: Runtime;
    before(async () => {
      rt = await createRuntime(loadConfig(process.env));
      await resetDb(rt.orm);
    });
    after(async () => rt.close());

    function documentWith(urls: string[]) {
      const doc = exampleDocument();
      const template = doc.apiUsers![0];
      doc.apiUsers = urls.map((urlApi, i) => ({ ...template, username: `tenant-${i}`, urlApi, apiKey: undefined }));
      doc.centrals = [];
      doc.technicians = [];
      return doc;
    }

    it('refuses a document whose urlApi names a refused address, with the path; accepts it when allowed', async () => {
      const doc = documentWith(['http://127.0.0.1', 'https://hooks.example.com', 'http://169.254.169.254', 'http://[::ffff:10.0.0.1]']);
      const refused = await provision(rt.orm.em, doc, guarded);
      expect(refused.ok).to.equal(false);
      const problems = refused.ok ? [] : refused.problems;
      expect(problems).to.have.length(3);
      expect(problems[0]).to.match(/^\/apiUsers\/0\/urlApi: refused as an outbound target \(127\.0\.0\.1 is a loopback address\)/);
      expect(problems[1]).to.match(/^\/apiUsers\/2\/urlApi: refused as an outbound target \(169\.254\.169\.254 is a linkLocal address\)/);
      expect(problems[2]).to.match(/^\/apiUsers\/3\/urlApi: refused as an outbound target \(10\.0\.0\.1 is a private address\)/);
      expect((await provision(rt.orm.em, doc, open)).ok).to.equal(true);
    });
  });

  describe('at send time, after DNS resolution', () => {
    let local: Awaited<ReturnType<typeof receiver>>;
    // A host name the attacker controls, answering with a loopback address (DNS rebinding).
    const resolve: Resolver = (hostname, _options, callback) =>
      hostname === 'rebind.test' ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }), []);
    const LOOPBACK_ONLY = /^(127\.0\.0\.1|localhost|\[::1\]|::1)(:\d+)?$/;

    before(async () => {
      local = await receiver();
      nock.enableNetConnect((host) => LOOPBACK_ONLY.test(host) || /^rebind\.test(:\d+)?$/.test(host));
    });
    after(async () => {
      nock.enableNetConnect((host) => LOOPBACK_ONLY.test(host));
      await new Promise<void>((done) => local.server.close(() => done()));
    });

    it('refuses a host that resolves to loopback: nothing reaches the local receiver; with the allowance it is sent', async () => {
      const url = `http://rebind.test:${local.port}/hook`;
      const refused = await sendWebhook({ url, body: { id: 'x' } }, 2000, targetPolicy({ allowPrivate: false, allowHosts: [], resolve }));
      expect(refused).to.include({ ok: false, statusCode: null, replyBody: null });
      expect(refused.error).to.match(/refused target: rebind\.test resolves to 127\.0\.0\.1 \(loopback\)/);
      expect(local.hits()).to.equal(0);

      const literal = await sendWebhook({ url: `http://127.0.0.1:${local.port}/hook`, body: {} }, 2000, guarded);
      expect(literal.error).to.match(/^refused target: 127\.0\.0\.1 is a loopback address/);
      expect(local.hits()).to.equal(0);

      const allowed = await sendWebhook({ url, body: { id: 'x' } }, 2000, targetPolicy({ allowPrivate: true, allowHosts: [], resolve }));
      expect(allowed).to.include({ ok: true, statusCode: 200, replyBody: 'ok' });
      expect(local.hits()).to.equal(1);
      const listed = await sendWebhook({ url, body: {} }, 2000, targetPolicy({ allowPrivate: false, allowHosts: ['rebind.test'], resolve }));
      expect(listed).to.include({ ok: true, statusCode: 200 });
      expect(local.hits()).to.equal(2);
    });
  });

  describe('a refused acceptance notification (6.1)', () => {
    let app: TestApp;
    let gen: Generator;
    let prov: Provider;
    let local: Awaited<ReturnType<typeof receiver>>;

    before(async () => {
      local = await receiver();
      ({ app, gen, prov } = await startOps({
        env: { OUTBOUND_ALLOW_PRIVATE: 'false', QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_targets` },
        generator: { urlApi: `http://127.0.0.1:${local.port}` },
      }));
    });
    after(async () => {
      await app.close();
      await new Promise<void>((done) => local.server.close(() => done()));
    });

    it('is recorded on the delivery row as an error, counts as a non-200 (offer INACTIVA), and nothing is sent', async () => {
      const em = app.rt.orm.em.fork();
      const offer = await offerIn(em, gen, 'ACEPTADA', prov);
      const response = await respond(em, offer, prov);
      const deliveryId = planAcceptanceNotification(em, app.rt.config, offer, gen.user, response)!;
      await em.flush();
      const outcome = await dispatchAcceptance(app.rt, deliveryId);
      expect(outcome?.ok).to.equal(false);
      const row = await app.rt.orm.em.fork().findOneOrFail(WebhookDelivery, { id: deliveryId });
      expect(row.state).to.equal('failed');
      expect(row.statusCode ?? null).to.equal(null);
      expect(row.error).to.match(/^refused target: 127\.0\.0\.1 is a loopback address/);
      expect((await app.rt.orm.em.fork().findOneOrFail(Offer, { uuid: offer.uuid })).state).to.equal('INACTIVA');
      expect(local.hits()).to.equal(0);
    });
  });

  it('relays at most 4 KB of a generator reply to the central, without control characters or lone surrogates', () => {
    expect(relayableReply('{"msg":"no\\u0000 gracias\\ud800","n":1}')).to.deep.equal({ kind: 'object', value: { msg: 'no gracias\ufffd', n: 1 } });
    expect(relayableReply('plain\u0000 text\u001b[31m')).to.deep.equal({ kind: 'value', value: 'plain text[31m' });
    const long = relayableReply(`{"a":"${'x'.repeat(70_000)}"}`);
    expect(long.kind).to.equal('value');
    expect(String(long.value)).to.have.length(RELAY_MAX_CHARS + 1);
    expect(String(long.value).endsWith('…')).to.equal(true);
  });
});
