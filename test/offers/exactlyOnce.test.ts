/**
 * Decisions D5: the acceptance notification is sent once even when the worker
 * process dies in the middle of the request. A real worker process sends it to
 * a local endpoint that never answers; the process is killed; another worker
 * does not send again and fails the delivery once the webhook timeout has
 * passed (the offer becomes INACTIVA). Sent by its job, the stalled job is run
 * again; sent by the selecting process itself (issue 12, item 3), there is no
 * job, and the outbox sweeper hands the claimed delivery to one.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Offer, WebhookDelivery } from '../../src/db/entities/index.js';
import { ABANDONED_ERROR } from '../../src/domain/offers/selection/acceptanceNotification.js';
import { jobId } from '../../src/queues/registry.js';
import { resetDb } from '../helpers/db.js';
import { makeServiceType } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { acceptanceBody, distributeTo, makeGenerator, makeResponder, offerBody } from '../helpers/offers.js';
import { waitFor } from '../helpers/wait.js';

const WORKER_MAIN = fileURLToPath(new URL('../../workers/main.js', import.meta.url));

interface Received {
  headers: IncomingMessage['headers'];
  raw: string;
}

function startWorker(env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [WORKER_MAIN], {
    env: { ...process.env, WORKER_LOCK_DURATION_MS: '4000', WORKER_STALLED_INTERVAL_MS: '500', WEBHOOK_TIMEOUT_MS: '2000', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

async function stop(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  await exited;
}

describe('acceptance notification: a worker killed mid-request', () => {
  let app: TestApp;
  let receiver: Server;
  const sockets = new Set<Socket>();
  const received: Received[] = [];
  let first: ChildProcess | undefined;
  let second: ChildProcess | undefined;

  before(async () => {
    receiver = createServer((req) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      req.on('end', () => received.push({ headers: req.headers, raw }));
      // never answers
    });
    receiver.on('connection', (s) => sockets.add(s));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    app = await startApp();
    await resetDb(app.rt.orm);
  });
  after(async () => {
    await stop(first, 'SIGKILL');
    await stop(second, 'SIGTERM');
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await app.close();
  });

  /** An offer answered by a central, its window closing in the worker about to start; the generator's endpoint never answers. */
  async function answeredOffer(secret: string): Promise<{ uuid: string; nit: string }> {
    const fork = () => app.rt.orm.em.fork();
    const { port } = receiver.address() as AddressInfo;
    const gen = await makeGenerator(fork(), { urlApi: `http://127.0.0.1:${port}`, apiEndpoint: { respuesta: '/hook' }, webhookSecret: secret });
    const r = await makeResponder(fork());
    const body = offerBody();
    const uuid = body.uuid as string;
    expect((await app.client.post('api/v3/oferta', { json: body, headers: { authorization: gen.auth } })).statusCode).to.equal(200);
    await distributeTo(app.rt.orm.em.fork(), uuid, r); // D20: only a recipient answers
    expect((await app.client.put('api/v3/aceptacion', { json: acceptanceBody(uuid, r), headers: { 'x-apikey': r.key } })).statusCode).to.equal(200);
    return { uuid, nit: r.central.nit };
  }

  it('sent by its job: sends exactly once; the new worker fails the unanswered delivery after the timeout: INACTIVA', async function () {
    this.timeout(60000);
    const fork = () => app.rt.orm.em.fork();
    await makeServiceType(fork(), { id: 1 });
    const { uuid, nit } = await answeredOffer('kill-test');

    first = startWorker({ ACCEPTANCE_SENDS_IN_FLIGHT: '0' });
    await waitFor(() => received.length > 0, 20000, 'the webhook to arrive');
    await stop(first, 'SIGKILL');

    const delivery = await fork().findOneOrFail(WebhookDelivery, { offer: uuid });
    expect(delivery).to.include({ state: 'sending', attempts: 1 });
    const [{ headers, raw }] = received;
    expect(JSON.parse(raw)).to.include({ id: uuid, dniPrestador: nit });
    expect(headers['x-signature']).to.equal(createHmac('sha256', 'kill-test').update(`${String(headers['x-timestamp'])}.${raw}`).digest('hex'));

    second = startWorker({ ACCEPTANCE_SENDS_IN_FLIGHT: '0' });
    const job = await app.rt.queues.get('webhook-dispatch').getJob(jobId('deliver', delivery.id));
    await waitFor(async () => (await job!.getState()) === 'completed', 20000, 'the stalled job to be run again');
    const after = await fork().findOneOrFail(WebhookDelivery, { id: delivery.id });
    expect(after).to.include({ state: 'failed', attempts: 1, error: ABANDONED_ERROR, statusCode: null });
    expect((await fork().findOneOrFail(Offer, { uuid })).state).to.equal('INACTIVA');
    expect((await app.rt.queues.get('webhook-dispatch').getJob(jobId('deliver', delivery.id)))!.stalledCounter).to.equal(1);
    expect(received, 'requests the endpoint received').to.have.length(1);
    await stop(second, 'SIGTERM');
  });

  it('sent by the selecting process: no job; the sweeper hands the claimed delivery to one, which fails it without sending again', async function () {
    this.timeout(60000);
    received.length = 0;
    const fork = () => app.rt.orm.em.fork();
    const { uuid } = await answeredOffer('kill-test-direct');

    first = startWorker();
    await waitFor(() => received.length > 0, 20000, 'the webhook to arrive');
    await stop(first, 'SIGKILL');

    const delivery = await fork().findOneOrFail(WebhookDelivery, { offer: uuid });
    expect(delivery).to.include({ state: 'sending', attempts: 1 });
    expect(JSON.parse(received[0].raw)).to.include({ id: uuid });
    const queue = app.rt.queues.get('webhook-dispatch');
    expect(await queue.getJob(jobId('deliver', delivery.id)), 'sent without a job').to.equal(undefined);

    // the sweeper takes acceptances a minute old whose claim is older than the webhook timeout: as if that had passed
    await fork().getConnection().execute(`update webhook_delivery set created_at = created_at - interval '2 minutes', sent_at = sent_at - interval '2 minutes' where id = ?`, [delivery.id]);
    second = startWorker({ SWEEP_INTERVAL_MS: '300' });
    const job = async () => queue.getJob(jobId('deliver', delivery.id));
    await waitFor(async () => (await (await job())?.getState()) === 'completed', 20000, 'the sweeper to add a job and the job to end');
    expect(await fork().findOneOrFail(WebhookDelivery, { id: delivery.id })).to.include({ state: 'failed', attempts: 1, error: ABANDONED_ERROR, statusCode: null });
    expect((await fork().findOneOrFail(Offer, { uuid })).state).to.equal('INACTIVA');
    expect(received, 'requests the endpoint received').to.have.length(1);
  });
});
