/**
 * A worker killed with `kill -9` while running a job (issue 8, item 11): with
 * the default WORKER_LOCK_DURATION_MS and WORKER_STALLED_INTERVAL_MS, another
 * running worker takes the job within their sum (README, "Configuration").
 * The job is the acceptance notification, whose delivery row claim keeps it
 * from being sent twice (decisions D5; test/offers/exactlyOnce.test.ts).
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { loadConfig } from '../../config/index.js';
import { WebhookDelivery } from '../../src/db/entities/index.js';
import { jobId } from '../../src/queues/registry.js';
import { resetDb } from '../helpers/db.js';
import { makeServiceType } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { acceptanceBody, distributeTo, makeGenerator, makeResponder, offerBody } from '../helpers/offers.js';
import { spawnEntry, type Spawned } from '../helpers/spawn.js';
import { waitFor } from '../helpers/wait.js';

describe('a worker killed while running a job', function () {
  this.timeout(90000);
  const prefix = `${process.env.QUEUE_PREFIX}_takeover`;
  const defaults = loadConfig({});
  let app: TestApp;
  let receiver: Server;
  const sockets = new Set<Socket>();
  const received: string[] = [];
  const workers: Spawned[] = [];

  /** A worker process with the default lock settings. */
  const startWorker = (webhookTimeoutMs: number) => {
    const w = spawnEntry('dist/workers/main.js', {
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: 'info',
      WORKER_LOCK_DURATION_MS: undefined,
      WORKER_STALLED_INTERVAL_MS: undefined,
      WEBHOOK_TIMEOUT_MS: String(webhookTimeoutMs),
      // the 6.1 through its job (the takeover is the queue's); sent from the selecting process, a killed worker's
      // send is the sweeper's (test/offers/exactlyOnce.test.ts)
      ACCEPTANCE_SENDS_IN_FLIGHT: '0',
    });
    workers.push(w);
    return w;
  };

  before(async () => {
    receiver = createServer((req) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      req.on('end', () => received.push(raw));
      // never answers
    });
    receiver.on('connection', (s) => sockets.add(s));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    app = await startApp({ env: { QUEUE_PREFIX: prefix } });
    await resetDb(app.rt.orm);
  });
  after(async () => {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await app.close();
  });

  it(`is taken by another worker within WORKER_LOCK_DURATION_MS + WORKER_STALLED_INTERVAL_MS (${defaults.workerLockDurationMs} + ${defaults.workerStalledIntervalMs} ms by default)`, async () => {
    expect([defaults.workerLockDurationMs, defaults.workerStalledIntervalMs]).to.deep.equal([10000, 5000]);
    const fork = () => app.rt.orm.em.fork();
    await makeServiceType(fork(), { id: 1 });
    const { port } = receiver.address() as AddressInfo;
    const gen = await makeGenerator(fork(), { urlApi: `http://127.0.0.1:${port}`, apiEndpoint: { respuesta: '/hook' } });
    const r = await makeResponder(fork());
    const body = offerBody();
    const uuid = body.uuid as string;
    expect((await app.client.post('api/v3/oferta', { json: body, headers: { authorization: gen.auth } })).statusCode).to.equal(200);
    await distributeTo(app.rt.orm.em.fork(), uuid, r); // D20: only a recipient answers
    expect((await app.client.put('api/v3/aceptacion', { json: acceptanceBody(uuid, r), headers: { 'x-apikey': r.key } })).statusCode).to.equal(200);

    // The first worker sends the notification and waits for an answer that never comes.
    const first = startWorker(120000);
    await waitFor(() => received.length > 0, 30000, 'the notification to arrive');
    const second = startWorker(2000);
    await waitFor(() => second.stdout().includes('"msg":"workers running"'), 30000, 'the second worker running');

    first.child.kill('SIGKILL');
    await first.exited;
    const delivery = await fork().findOneOrFail(WebhookDelivery, { offer: uuid });
    expect(delivery).to.include({ state: 'sending', attempts: 1 });
    const job = await app.rt.queues.get('webhook-dispatch').getJob(jobId('deliver', delivery.id));
    // The bound the README states, plus a margin for a loaded machine; the event itself is awaited.
    await waitFor(async () => (await job!.getState()) === 'completed', {
      timeoutMs: defaults.workerLockDurationMs + defaults.workerStalledIntervalMs + 5000,
      intervalMs: 100,
      what: 'the second worker to take the stalled job',
    });
    expect((await app.rt.queues.get('webhook-dispatch').getJob(jobId('deliver', delivery.id)))!.stalledCounter).to.equal(1);
    // settled as abandoned (its text: ABANDONED_ERROR, test/offers/exactlyOnce.test.ts), never sent again
    expect(await fork().findOneOrFail(WebhookDelivery, { id: delivery.id })).to.include({ state: 'failed', attempts: 1, statusCode: null });
    expect(received, 'notifications the generator received').to.have.length(1);
  });
});
