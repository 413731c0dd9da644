/**
 * The customer's data is not kept forever (issue 29 item 9): the prune job
 * (state-notification/prune, every six hours) deletes SMS rows, chat
 * messages and expired tracking tokens past their retention, and blanks old
 * survey comments while keeping their ratings; recent rows stay.
 */
import { expect } from 'chai';
import type { Job } from 'bullmq';
import { handlers } from '../../workers/processors/index.js';
import { pruneCustomerData } from '../../src/domain/tracking/retention.js';
import type { TestApp } from '../helpers/harness.js';
import { offerIn, startOps, type Generator, type Provider } from '../helpers/ops.js';

describe('retention of the customer’s data (issue 29 item 9)', () => {
  let app: TestApp;
  let gen: Generator;
  let prov: Provider;
  before(async () => {
    ({ app, gen, prov } = await startOps({
      env: { SMS_RETENTION_DAYS: '30', CHAT_RETENTION_DAYS: '90', SURVEY_COMMENT_RETENTION_DAYS: '180', TRACKING_TOKEN_RETENTION_DAYS: '1' },
    }));
  });
  after(async () => app.close());

  const em = () => app.rt.orm.em.fork();
  const q = <R extends object>(text: string, params: unknown[] = []) => em().execute<R[]>(text, params);

  /** One old and one recent row in each table, told apart by their text. */
  async function seed(): Promise<void> {
    const [a, b] = [await offerIn(em(), gen, 'FINALIZADA', prov), await offerIn(em(), gen, 'FINALIZADA', prov)];
    await q(
      `insert into sms_message (id, offer_uuid, to_phone, body, provider, state, created_at) values
        (gen_random_uuid(), ?, '+573001112233', 'old', 'http', 'sent', now() - interval '31 days'),
        (gen_random_uuid(), ?, '+573001112233', 'recent', 'http', 'sent', now() - interval '29 days')`,
      [a.uuid, a.uuid],
    );
    await q(
      `insert into chat_message (offer_uuid, autor, texto, enviado_en) values
        (?, 'cliente', 'old', now() - interval '91 days'), (?, 'cliente', 'recent', now() - interval '89 days')`,
      [a.uuid, a.uuid],
    );
    await q(
      `insert into service_survey (offer_uuid, rating, comment, created_at) values
        (?, 2, 'old', now() - interval '181 days'), (?, 5, 'recent', now() - interval '179 days')`,
      [a.uuid, b.uuid],
    );
    await q(
      `insert into tracking_token (token_hash, offer_uuid, expires_at) values
        ('o' || left(md5(random()::text) || md5(random()::text), 63), ?, now() - interval '25 hours'),
        ('r' || left(md5(random()::text) || md5(random()::text), 63), ?, now() - interval '23 hours')`,
      [a.uuid, a.uuid],
    );
  }

  async function left() {
    return {
      sms: (await q<{ body: string }>(`select body from sms_message order by body`)).map((r) => r.body),
      chat: (await q<{ texto: string }>(`select texto from chat_message order by texto`)).map((r) => r.texto),
      surveys: await q<{ rating: number; comment: string | null }>(`select rating, comment from service_survey order by rating`),
      tokens: (await q<{ h: string }>(`select left(token_hash, 1) as h from tracking_token order by 1`)).map((r) => r.h),
    };
  }

  const clean = () => q(`delete from sms_message; delete from chat_message; delete from service_survey; delete from tracking_token`);
  const kept = {
    sms: ['recent'],
    chat: ['recent'],
    surveys: [
      { rating: 2, comment: null },
      { rating: 5, comment: 'recent' },
    ],
    tokens: ['r'],
  };

  it('the existing prune job removes what is past its retention and keeps the rest', async () => {
    await clean();
    await seed();
    await handlers['state-notification'].prune(app.rt, {} as never, {} as Job);
    expect(await left()).to.deep.equal(kept);
    const logged = app.logs.find((l) => l.msg === 'customer data past its retention pruned');
    expect(logged?.pruned).to.deep.equal({ sms: 1, chat: 1, surveyComments: 1, trackingTokens: 1 });
  });

  it('works through any number of rows in bounded batches', async () => {
    await clean();
    await seed();
    await seed();
    await seed();
    const pruned = await pruneCustomerData(em(), app.rt.config, 2);
    expect(pruned).to.deep.equal({ sms: 3, chat: 3, surveyComments: 3, trackingTokens: 3 });
    const after = await left();
    expect(after.sms).to.deep.equal(['recent', 'recent', 'recent']);
    expect(after.chat).to.deep.equal(['recent', 'recent', 'recent']);
    expect(after.surveys.filter((s) => s.comment !== null)).to.have.length(3);
    expect(after.surveys).to.have.length(6);
  });
});
