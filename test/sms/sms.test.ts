/**
 * SMS providers (D16): outbox (offline), http and twilio (nock stands in for
 * the providers), sent by the customer-sms job with bounded retries, every
 * outcome on the sms_message row.
 */
import { expect } from 'chai';
import nock from 'nock';
import { recordSms, sendRecordedSms, type SmsRow } from '../../src/sms/messages.js';
import { smsProvider } from '../../src/sms/providers.js';
import { smsSealKey } from '../../src/sms/seal.js';
import { loadConfig } from '../../config/index.js';
import { startCleanApp, startApp, type TestApp } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';

const SID = `AC${'0123456789abcdef'.repeat(2)}`;

describe('SMS providers and the customer-sms job (D16)', () => {
  let app: TestApp;
  before(async () => {
    app = await startCleanApp({
      env: { SMS_PROVIDER: 'http', SMS_HTTP_URL: 'http://sms.test/send', SMS_HTTP_TOKEN: 'tok-123', SMS_ATTEMPTS: '3' },
      workers: true,
    });
  });
  after(async () => {
    nock.cleanAll();
    await app.close();
  });
  afterEach(() => nock.cleanAll());

  const em = () => app.rt.orm.em.fork();
  const key = () => smsSealKey(app.rt.config.integritySecret);
  const row = async (id: string) => (await em().execute<SmsRow[]>(`select * from sms_message where id = ?`, [id]))[0];
  const queue = async (to: string) => {
    const id = await recordSms(em(), { offerUuid: null, to, body: 'Tu código de seguimiento es 123456', provider: 'http', secret: '123456' }, key());
    await app.rt.queues.add('customer-sms', 'send', { smsId: id });
    return id;
  };

  it('http: POSTs {to, body} with the bearer token; a failing provider is retried, and a success recorded once', async () => {
    const seen: unknown[] = [];
    nock('http://sms.test').post('/send').reply(503, 'busy');
    nock('http://sms.test')
      .post('/send', (b: unknown) => (seen.push(b), true))
      .matchHeader('authorization', 'Bearer tok-123')
      .reply(200, { id: 'prov-1' });
    const id = await queue('+573001112233');
    const sent = await waitFor(async () => ((await row(id))?.state === 'sent' ? row(id) : undefined), 10000);
    expect(sent).to.include({ attempts: 2, provider_id: 'prov-1', error: null });
    expect(seen).to.deep.equal([{ to: '+573001112233', body: 'Tu código de seguimiento es 123456' }]);
    // D24: the code never stays in clear: the row shows it masked, and the sealed copy is gone once sent
    expect(sent).to.include({ body: 'Tu código de seguimiento es ******', sealed_body: null });
  });

  it('keeps the code out of every row while pending, and out of an error a provider echoes it in (D24)', async () => {
    const id = await recordSms(em(), { offerUuid: null, to: '+573001112244', body: 'Tu código de seguimiento es 987654', provider: 'http', secret: '987654' }, key());
    const pending = await row(id);
    expect(JSON.stringify(pending)).to.not.include('987654');
    expect(pending.sealed_body).to.be.a('string');
    nock('http://sms.test').post('/send').reply(400, (_uri, body) => `rejected: ${JSON.stringify(body)}`);
    await app.rt.queues.add('customer-sms', 'send', { smsId: id });
    const failed = await waitFor(async () => ((await row(id))?.state === 'failed' ? row(id) : undefined), 10000);
    expect(failed.error).to.include('******').and.not.include('987654');
    expect(JSON.stringify(failed)).to.not.include('987654');
    expect(failed.sealed_body).to.equal(null);
  });

  it('http: a refusal retrying cannot change (400) ends at once, recorded as failed; retries are bounded (SMS_ATTEMPTS)', async () => {
    nock('http://sms.test').post('/send').reply(400, 'bad number');
    const refused = await queue('+570000');
    const failed = await waitFor(async () => ((await row(refused))?.state === 'failed' ? row(refused) : undefined), 10000);
    expect(failed).to.include({ attempts: 1, error: 'HTTP 400 bad number' });

    nock('http://sms.test').post('/send').times(3).reply(500, 'down');
    const down = await queue('+571111');
    const given = await waitFor(async () => ((await row(down))?.state === 'failed' ? row(down) : undefined), 15000);
    expect(given.attempts).to.equal(3);
    expect(nock.isDone()).to.equal(true);
  });

  it('twilio: its Messages API with the account SID and token, form-encoded', async () => {
    const cfg = loadConfig({ ...process.env, SMS_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: 'secret', TWILIO_FROM: '+15005550006' });
    let form = '';
    nock('https://api.twilio.com')
      .post(`/2010-04-01/Accounts/${SID}/Messages.json`, (b: string | Record<string, string>) => ((form = typeof b === 'string' ? b : new URLSearchParams(b).toString()), true))
      .basicAuth({ user: SID, pass: 'secret' })
      .reply(201, { sid: 'SM123', status: 'queued' });
    const out = await smsProvider(cfg).send('+573001112233', 'Tu código de seguimiento es 654321');
    expect(out).to.deep.equal({ providerId: 'SM123' });
    expect(Object.fromEntries(new URLSearchParams(form))).to.deep.equal({ To: '+573001112233', From: '+15005550006', Body: 'Tu código de seguimiento es 654321' });
  });

  it('outbox sends nothing out and marks the row sent; a row already sent is not sent again', async () => {
    const outbox = smsProvider(loadConfig({ ...process.env, SMS_PROVIDER: 'outbox' }));
    const id = await recordSms(em(), { offerUuid: null, to: '+572222', body: 'Tu código de seguimiento es 000111', provider: 'outbox', secret: '000111' }, key());
    await sendRecordedSms(em(), outbox, id, false, key());
    await sendRecordedSms(em(), outbox, id, false, key());
    // outbox is where the demo reads its code (refused in production): its body stays in clear
    expect(await row(id)).to.include({ state: 'sent', attempts: 1, provider: 'outbox', body: 'Tu código de seguimiento es 000111' });
  });

  it('the configuration requires what the chosen provider needs', () => {
    expect(() => loadConfig({ SMS_PROVIDER: 'http' })).to.throw(/SMS_HTTP_URL is required/);
    expect(() => loadConfig({ SMS_PROVIDER: 'twilio' })).to.throw(/TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM are required/);
    // D24: outbox keeps codes in clear, so production refuses it, the default included
    const prod = { NODE_ENV: 'production', JWT_SECRET: 'j'.repeat(32), INTEGRITY_SECRET: 'i'.repeat(32), PUBLIC_ORIGIN: 'https://seguimiento.example.com' };
    expect(() => loadConfig(prod)).to.throw(/SMS_PROVIDER=outbox is refused when NODE_ENV is production/);
    expect(() => loadConfig({ ...prod, SMS_PROVIDER: 'outbox' })).to.throw(/SMS_PROVIDER=outbox is refused/);
    expect(loadConfig({ ...prod, SMS_PROVIDER: 'http', SMS_HTTP_URL: 'https://sms.example.com/send' }).smsProvider).to.equal('http');
    // nor may a code or a provider's token cross the network in clear
    expect(() => loadConfig({ ...prod, SMS_PROVIDER: 'http', SMS_HTTP_URL: 'http://sms.example.com/send' })).to.throw(/SMS_HTTP_URL must be https:\/\//);
    const twilio = { ...prod, SMS_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: 't', TWILIO_FROM: '+15005550006' };
    expect(() => loadConfig({ ...twilio, TWILIO_API_URL: 'http://api.twilio.test' })).to.throw(/TWILIO_API_URL must be https:\/\//);
    expect(loadConfig(twilio).smsProvider).to.equal('twilio');
    expect(loadConfig({ SMS_PROVIDER: 'http', SMS_HTTP_URL: 'http://sms.test/send' }).smsHttpUrl, 'outside production, plain http is fine').to.equal('http://sms.test/send');
  });
});
