/**
 * Issue 30, item 7: at most once costs only what is on the wire. A worker process closes a batch of windows and
 * sends their acceptance notifications (6.1) itself; the generator's endpoint holds every request open; the worker is
 * killed (SIGKILL) as soon as the first request arrives. Then another worker recovers (the stalled evaluation job, and
 * each offer's notification handed to a job as the outbox sweeper does): what was not on the wire is sent, once; what
 * was is settled as unanswered (D5). Lost = the sends under way at the kill (each claimed just before its request
 * went out; on the wire, or being written), never one of the batch that had not started; duplicates 0. The figures
 * are printed (one line): requests on the wire and sends started at the kill, lost, sent after recovery.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Offer, WebhookDelivery } from '../../src/db/entities/index.js';
import { ABANDONED_ERROR, resumeAcceptance } from '../../src/domain/offers/selection/acceptanceNotification.js';
import { startWorkers, type WorkerGroup } from '../../workers/index.js';
import { resetDb } from '../helpers/db.js';
import { makeServiceType } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { answeredOffer, makeDue, makeGenerator, makeResponder, type Generator } from '../helpers/offers.js';
import { clearQueues } from '../helpers/queues.js';
import { waitFor } from '../helpers/wait.js';

const WORKER_MAIN = fileURLToPath(new URL('../../workers/main.js', import.meta.url));
const BATCH = 12;
/** the worker process's PostgreSQL application_name (src/main/runtime.ts: `broker <role>`, workers/main.ts's role) */
const WORKER_APPLICATION = 'broker worker offer-evaluation,webhook-dispatch';

describe('acceptance notifications: a worker killed while sending a batch (issue 30.7)', function () {
  this.timeout(60000);
  let app: TestApp;
  let server: Server;
  let child: ChildProcess | undefined;
  let recovery: WorkerGroup | undefined;
  let holding = true;
  const sockets = new Set<Socket>();
  const held: ServerResponse[] = [];
  /** every 6.1 request received, by offer id */
  const received: string[] = [];
  let connections = 0;
  const prefix = `${process.env.QUEUE_PREFIX}_killbatch`;
  const env = { QUEUE_PREFIX: prefix, WEBHOOK_TIMEOUT_MS: '2000', WORKER_LOCK_DURATION_MS: '2000', WORKER_STALLED_INTERVAL_MS: '300' };

  before(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      req.on('end', () => {
        received.push(String((JSON.parse(raw) as { id: string }).id));
        if (holding) held.push(res);
        else res.writeHead(200).end('ok');
      });
    });
    server.on('connection', (s) => {
      connections++;
      sockets.add(s);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    app = await startApp({ env });
    await resetDb(app.rt.orm);
    await clearQueues(app.rt);
  });
  after(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await recovery?.close();
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await clearQueues(app.rt);
    await app.close();
  });

  it('loses at most the requests on the wire at the kill; sends every other one once', async () => {
    const fork = () => app.rt.orm.em.fork();
    const workerBackends = async () => {
      const [row] = await fork().getConnection().execute<Array<{ n: number }>>(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = ?`,
        [WORKER_APPLICATION],
      );
      return row.n;
    };
    await makeServiceType(fork(), { id: 1 });
    const { port } = server.address() as AddressInfo;
    const gen: Generator = await makeGenerator(fork(), { urlApi: `http://127.0.0.1:${port}`, apiEndpoint: { respuesta: '/hook' } });
    const r = await makeResponder(fork());
    const uuids: string[] = [];
    for (let i = 0; i < BATCH; i++) uuids.push(await answeredOffer(app, gen, [[r, 8]]));
    await makeDue(app, uuids);

    // the worker process takes the evaluation: one job closes the whole batch and sends its 6.1 itself
    child = spawn(process.execPath, [WORKER_MAIN], {
      // four sent straight from the batch (claimed together), the rest through the queue's jobs (claimed one by one)
      env: { ...process.env, ...env, WORKER_QUEUES: 'offer-evaluation,webhook-dispatch', ACCEPTANCE_SENDS_IN_FLIGHT: '4', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    await app.rt.queues.add('offer-evaluation', 'evaluate', { offerUuid: uuids[0] });
    await waitFor(() => received.length > 0, 20000, 'the first acceptance notification to arrive');
    expect(await workerBackends(), "the worker's PostgreSQL backends, by their application_name").to.be.greaterThan(0);
    const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
    // what the dead process had written to its sockets arrives before each one's end (the kernel closed them)
    await Promise.all([...sockets].map((s) => (s.destroyed ? undefined : once(s, 'close'))));
    // and a statement it had sent to PostgreSQL (a claim) still runs to its commit: its backends end only after that
    await waitFor(async () => (await workerBackends()) === 0, 10000, "the dead worker's PostgreSQL backends to end");
    const inFlight = connections;
    const onTheWire = new Set(received);
    // the sends the dead worker had started: claimed (each just before its request went out) and never answered
    const started = new Set(
      (await fork().find(WebhookDelivery, { offer: { $in: uuids }, kind: 'acceptance', state: 'sending' })).map((d) => d.offer?.uuid ?? ''),
    );
    for (const res of held) res.destroy();
    holding = false;

    // the recovery: another worker (the stalled evaluation job is run again) and, for each offer, its notification
    // handed to a job (what the outbox sweeper does for an acceptance left pending or claimed)
    recovery = await startWorkers(app.rt, { queues: ['offer-evaluation', 'webhook-dispatch'] });
    for (const uuid of uuids) await resumeAcceptance(app.rt, uuid);
    const rows = await waitFor(
      async () => {
        const all = await fork().find(WebhookDelivery, { offer: { $in: uuids }, kind: 'acceptance' });
        return all.length === BATCH && all.every((d) => d.state === 'ok' || d.state === 'failed') ? all : null;
      },
      20000,
      'every notification settled',
    );
    const lost = rows.filter((d) => d.state === 'failed');
    const duplicates = received.length - new Set(received).size;
    console.log(
      `      kill mid-batch: batch ${BATCH}, at the kill ${inFlight} requests on the wire (${onTheWire.size} complete) and ${started.size} sends started, ` +
        `lost ${lost.length}, sent after recovery ${rows.length - lost.length}, duplicates ${duplicates}`,
    );

    expect(duplicates, 'no notification sent twice').to.equal(0);
    // only a send under way at the kill is lost (its request on the wire, or being written: claimed just before);
    // every other one, never claimed, is sent by the recovery
    expect(lost.map((d) => d.offer?.uuid).sort(), 'lost: exactly the sends under way at the kill').to.deep.equal([...started].sort());
    for (const d of lost) expect(d.error).to.equal(ABANDONED_ERROR);

    // a rejected selection (the lost ones) moves its offer to INACTIVA just after its row is settled
    const expected = uuids.map((uuid) => (rows.find((x) => x.offer?.uuid === uuid)!.state === 'ok' ? 'ACEPTADA' : 'INACTIVA'));
    const states = () => Promise.all(uuids.map(async (uuid) => (await fork().findOneOrFail(Offer, { uuid })).state));
    await waitFor(async () => JSON.stringify(await states()) === JSON.stringify(expected), 10000, 'each offer in its next state');
    for (const d of rows) if (d.state === 'ok') expect(received.filter((id) => id === d.offer?.uuid), 'sent once').to.have.length(1);
  });
});
