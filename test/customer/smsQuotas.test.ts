/**
 * SMS that cannot be pumped, and codes never in clear (issue 29 items 3 and
 * 4a, D24): several live codes per expediente, phones read as E.164 before
 * sending, a destination allow-list, a daily budget per generator (beyond
 * either nothing is sent and the answer does not change), and, with a real
 * provider (nock stands in for it), no table and no log line holding a code.
 */
import { expect } from 'chai';
import nock from 'nock';
import { randomUUID } from 'node:crypto';
import type { Offer } from '../../src/db/entities/index.js';
import type { TestApp } from '../helpers/harness.js';
import { signedCall } from '../helpers/integrity.js';
import { bodyOf, offerIn, startOps, type Generator, type Provider } from '../helpers/ops.js';
import { waitFor } from '../helpers/wait.js';

const SECRET = 'integrity-secret-of-the-tests-0123456789';
const BUDGET = 3;
/** A code standing alone (not inside a longer run of letters or digits: a uuid, a timestamp). */
const standalone = (code: string) => new RegExp(`(?<![0-9A-Za-z])${code}(?![0-9A-Za-z])`);

describe('SMS quotas and codes at rest (issue 29 items 3, 4a; D24)', () => {
  let app: TestApp;
  let gen: Generator;
  let other: Generator;
  let prov: Provider;
  /** what the SMS provider received */
  let sent: Array<{ to: string; body: string }>;

  before(async () => {
    ({ app, gen, other, prov } = await startOps({
      env: {
        INTEGRITY_SECRET: SECRET,
        SMS_PROVIDER: 'http',
        SMS_HTTP_URL: 'http://sms.test/send',
        SMS_DAILY_BUDGET: String(BUDGET),
        SMS_ALLOWED_PREFIXES: '+57, +593',
        SMS_COUNTRY_CODE: '57',
        SMS_DAILY_CAP_PER_PHONE: '50',
      },
      workers: true,
    }));
  });
  after(async () => {
    nock.cleanAll();
    await app.close();
  });
  beforeEach(async () => {
    sent = [];
    nock.cleanAll();
    nock('http://sms.test')
      .persist()
      .post('/send', (b: { to: string; body: string }) => (sent.push(b), true))
      .reply(200, { id: 'prov' });
    await em().execute(`delete from tracking_request; delete from sms_message; delete from tracking_code`);
  });

  const em = () => app.rt.orm.em.fork();
  const call = (path: string, json: unknown) => signedCall(app.client, SECRET, { path: `api/v3/${path}`, json, method: 'POST' });
  const assigned = (phone: string, g: Generator = gen): Promise<Offer> =>
    offerIn(em(), g, 'ASIGNADA', prov, { telefonoCliente: phone, codigoServicio: `SV-${randomUUID().replace(/[^A-HJKMNP-TV-Z2-9]/gi, '').toUpperCase().slice(0, 6).padEnd(6, 'X')}` });
  const request = (offer: Offer, telefono: string) => call('tracking/requestCode', { expediente: offer.codigoServicio, telefono });
  /** The code of the n-th SMS the provider received (1-based), once it arrived. */
  const codeOf = async (n: number): Promise<string> => {
    const got = await waitFor(async () => (sent.length >= n ? sent[n - 1] : undefined));
    return /es ([0-9]{6})/.exec(got.body)![1];
  };
  /** Every SMS row has been settled (sent or failed). */
  const settled = () =>
    waitFor(async () => {
      const [{ n }] = await em().execute<Array<{ n: string }>>(`select count(*) as n from sms_message where state = 'pending'`);
      return Number(n) === 0 ? true : undefined;
    });
  const rowsFor = async (offer: Offer) => em().execute<Array<{ to_phone: string }>>(`select to_phone from sms_message where offer_uuid = ?`, [offer.uuid]);

  it('a new code does not kill the one the customer holds: each live code works while it lives', async () => {
    const offer = await assigned('+573001230001');
    expect((await request(offer, '3001230001')).statusCode).to.equal(200);
    const first = await codeOf(1);
    expect((await request(offer, '3001230001')).statusCode).to.equal(200);
    const second = await codeOf(2);
    const tracked = await call('tracking/track', { expediente: offer.codigoServicio, code: first });
    expect(tracked.statusCode, 'the first code still lets the customer in').to.equal(200);
    // once in, the other live codes are retired
    expect((await call('tracking/track', { expediente: offer.codigoServicio, code: second })).statusCode).to.equal(401);
  });

  it('a wrong try counts against every live code: five wrong tries end them all', async () => {
    const offer = await assigned('+573001230002');
    await request(offer, '3001230002');
    await request(offer, '3001230002');
    const [a, b] = [await codeOf(1), await codeOf(2)];
    const wrong = ['000000', '111111', '222222'].find((c) => c !== a && c !== b)!;
    for (let i = 0; i < 5; i++) expect((await call('tracking/track', { expediente: offer.codigoServicio, code: wrong })).statusCode).to.equal(401);
    for (const code of [a, b]) expect((await call('tracking/track', { expediente: offer.codigoServicio, code })).statusCode).to.equal(401);
  });

  it('sends to the phone read as E.164: a national number gets SMS_COUNTRY_CODE', async () => {
    const offer = await assigned('3001230003');
    expect((await request(offer, '300 123 0003')).statusCode).to.equal(200);
    await codeOf(1);
    expect(sent[0].to).to.equal('+573001230003');
    expect(await rowsFor(offer)).to.deep.equal([{ to_phone: '+573001230003' }]);
  });

  it('sends nothing outside SMS_ALLOWED_PREFIXES, nor to a number that is none, and answers the same', async () => {
    const inside = await assigned('+593991230004');
    const abroad = await assigned('+12025550123');
    const bogus = await assigned('+5712345');
    const answers = [await request(abroad, '+1 202 555 0123'), await request(bogus, '+5712345'), await request(inside, '+593991230004')];
    for (const r of answers) expect([r.statusCode, bodyOf(r)]).to.deep.equal([200, bodyOf(answers[2])]);
    await codeOf(1);
    await settled();
    expect(sent.map((s) => s.to)).to.deep.equal(['+593991230004']);
    expect(await rowsFor(abroad)).to.deep.equal([]);
    expect(await rowsFor(bogus)).to.deep.equal([]);
  });

  it('spends at most SMS_DAILY_BUDGET SMS per generator in 24 hours; others keep theirs; the answer does not change', async () => {
    const earlier = await assigned('+573001230005');
    // two SMS of this generator's services in the last day, one older that no longer counts
    await em().execute(
      `insert into sms_message (id, offer_uuid, to_phone, body, provider, state, created_at) values
        (gen_random_uuid(), ?, '+573001230005', 'x', 'http', 'sent', now() - interval '2 hours'),
        (gen_random_uuid(), ?, '+573001230005', 'x', 'http', 'sent', now() - interval '3 hours'),
        (gen_random_uuid(), ?, '+573001230005', 'x', 'http', 'sent', now() - interval '25 hours')`,
      [earlier.uuid, earlier.uuid, earlier.uuid],
    );
    const last = await assigned('+573001230006');
    expect((await request(last, '3001230006')).statusCode).to.equal(200);
    await codeOf(1);
    const over = await assigned('+573001230007');
    const refused = await request(over, '3001230007');
    const theirs = await assigned('+573001230008', other);
    const allowed = await request(theirs, '3001230008');
    expect([refused.statusCode, bodyOf(refused)]).to.deep.equal([200, bodyOf(allowed)]);
    await codeOf(2);
    await settled();
    expect(sent.map((s) => s.to)).to.deep.equal(['+573001230006', '+573001230008']);
    expect(await rowsFor(over)).to.deep.equal([]);
    const warned = app.logs.filter((l) => String(l.msg).includes('SMS_DAILY_BUDGET'));
    expect(warned.map((l) => l.uuid)).to.deep.equal([over.uuid]);
  });

  it('with a real provider, no table and no log line holds a code in clear (D14, D24)', async () => {
    const offer = await assigned('+573001230009');
    await request(offer, '3001230009');
    await request(offer, '3001230009');
    const codes = [await codeOf(1), await codeOf(2)];
    await settled();
    // our tables, not an extension's: PostGIS's spatial_ref_sys holds thousands of numbers, a random code among them
    const tables = await em().execute<Array<{ name: string }>>(
      `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = current_schema() and c.relkind in ('r', 'p')
          and not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'e')`,
    );
    expect(tables.map((t) => t.name)).to.include.members(['sms_message', 'tracking_code', 'tracking_request']);
    for (const { name } of tables) {
      const [{ dump }] = await em().execute<Array<{ dump: string | null }>>(`select string_agg(t::text, '\n') as dump from "${name}" t`);
      for (const code of codes) expect(dump ?? '', `${name} holds a code`).to.not.match(standalone(code));
    }
    const [row] = await em().execute<Array<{ body: string; sealed_body: string | null }>>(`select body, sealed_body from sms_message where offer_uuid = ? limit 1`, [offer.uuid]);
    expect(row.body).to.match(/es \*{6}/);
    expect(row.sealed_body).to.equal(null);
    const logged = JSON.stringify(app.logs);
    for (const code of codes) expect(logged).to.not.match(standalone(code));
  });
});
