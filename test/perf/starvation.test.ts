/**
 * Issue 12.3: time-critical work cannot be starved. A distribution backlog
 * whose running jobs each hold a PostgreSQL connection (as a distribution's
 * transaction does) and never finish: an offer is still received, answered,
 * selected at its deadline and its acceptance (6.1) sent, and no more
 * distributions run at once than the bound. No timings: the selection must
 * happen while the backlog is stuck.
 */
import { expect } from 'chai';
import nock from 'nock';
import { randomUUID } from 'node:crypto';
import { Offer, WebhookDelivery } from '../../src/db/entities/index.js';
import { jobId } from '../../src/queues/registry.js';
import { DEFAULT_CONCURRENCY } from '../../workers/index.js';
import { handlers } from '../../workers/processors/index.js';
import { makeServiceType } from '../helpers/factories.js';
import { startCleanApp, startApp, type TestApp } from '../helpers/harness.js';
import { GENERATOR_URL, RESPUESTA_PATH, acceptanceBody, distributeTo, makeGenerator, makeResponder, offerBody } from '../helpers/offers.js';
import { clearQueues } from '../helpers/queues.js';
import { waitFor } from '../helpers/wait.js';

describe('time-critical work under a distribution backlog (issue 12.3)', () => {
  let app: TestApp;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let running = 0;
  let most = 0;
  let started = 0;

  before(async () => {
    app = await startCleanApp({
      workers: {
        handlers: {
          ...handlers,
          'offer-distribution': {
            // a distribution that never finishes while the gate is shut, holding a connection in its transaction
            distribute: async (rt) => {
              started++;
              most = Math.max(most, ++running);
              try {
                await rt.orm.em.fork().transactional(async (tem) => {
                  await tem.getConnection().execute('select 1', [], 'all', tem.getTransactionContext());
                  await gate;
                });
              } finally {
                running--;
              }
            },
          },
        },
      },
      env: { OFFER_RESPONSE_WINDOW_MS: '500', WEBHOOK_TIMEOUT_MS: '2000' },
    });
    await makeServiceType(app.rt.orm.em.fork(), { id: 1 });
  });
  after(async () => {
    release();
    nock.cleanAll();
    await clearQueues(app.rt);
    await app.close();
  });

  it('an offer is selected at its deadline and its acceptance sent while distributions are stuck', async () => {
    const backlog = 3 * DEFAULT_CONCURRENCY['offer-distribution'] + 10;
    for (let i = 0; i < backlog; i++) {
      const uuid = randomUUID();
      await app.rt.queues.add('offer-distribution', 'distribute', { offerUuid: uuid }, { jobId: jobId('distribute', uuid) });
    }
    await waitFor(() => running === DEFAULT_CONCURRENCY['offer-distribution']);

    const fork = () => app.rt.orm.em.fork();
    const gen = await makeGenerator(fork());
    const responder = await makeResponder(fork());
    let received = 0;
    const endpoint = nock(GENERATOR_URL)
      .put(RESPUESTA_PATH)
      .reply(() => {
        received++;
        return [200, 'OK'];
      });
    const body = offerBody();
    const uuid = body.uuid as string;
    const created = await app.client.post('api/v3/oferta', { json: body, headers: { authorization: gen.auth } });
    expect(created.statusCode).to.equal(200);
    await distributeTo(app.rt.orm.em.fork(), uuid, responder); // D20: only a recipient answers
    const accepted = await app.client.put('api/v3/aceptacion', { json: acceptanceBody(uuid, responder), headers: { 'x-apikey': responder.key } });
    expect(accepted.statusCode).to.equal(200);

    await waitFor(async () => (await fork().findOne(Offer, { uuid }))?.state === 'ACEPTADA', 10000, 'ACEPTADA');
    await waitFor(() => received === 1, 10000, 'acceptance received');
    expect(endpoint.isDone()).to.equal(true);
    const delivery = await waitFor(async () => {
      const d = await fork().findOne(WebhookDelivery, { offer: uuid, kind: 'acceptance' });
      return d?.state === 'ok' ? d : null;
    }, 10000, 'acceptance recorded');
    expect(delivery).to.include({ statusCode: 200, attempts: 1 });
    // all of it happened while the backlog was stuck, and never more distributions at once than the bound
    expect(running).to.equal(DEFAULT_CONCURRENCY['offer-distribution']);
    expect(started).to.equal(DEFAULT_CONCURRENCY['offer-distribution']);
    expect(most).to.equal(DEFAULT_CONCURRENCY['offer-distribution']);
    // the bound leaves most of the pool to the others
    expect(DEFAULT_CONCURRENCY['offer-distribution']).to.be.at.most((app.rt.orm.config.get('pool')?.max ?? 0) / 2);
  });
});
