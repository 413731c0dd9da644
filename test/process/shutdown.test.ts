import { expect } from 'chai';
import got from 'got';
import { dropDatabase } from '../../src/db/database.js';
import { LOGIN_MESSAGES } from '../../src/http/routes/users.js';
import { jobId } from '../../src/queues/registry.js';
import { handlers } from '../../workers/processors/index.js';
import { startApp } from '../helpers/harness.js';
import { freePort } from '../helpers/ports.js';
import { parseResponse, rawConnection } from '../helpers/raw.js';
import { logLines, ROOT, spawnEntry, type Spawned } from '../helpers/spawn.js';
import { waitFor } from '../helpers/wait.js';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A TCP gate in front of PostgreSQL: connections are accepted and held until
 * `open()`, then relayed; `connected` resolves at the first connection.
 */
async function databaseGate(): Promise<{ url: string; connected: Promise<void>; open(): void; close(): Promise<void> }> {
  const held: Socket[] = [];
  let opened = false;
  let first: () => void = () => undefined;
  const connected = new Promise<void>((resolve) => (first = resolve));
  const target = new URL(process.env.DATABASE_URL!);
  const relay = (client: Socket) => {
    const upstream = createConnection(Number(target.port || 5432), target.hostname);
    client.pipe(upstream).pipe(client);
    const end = () => (client.destroy(), upstream.destroy());
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  };
  const server: Server = createServer((client) => {
    first();
    if (opened) relay(client);
    else held.push(client.pause());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: url.toString(),
    connected,
    open() {
      opened = true;
      for (const client of held.splice(0)) relay(client.resume());
    },
    close() {
      for (const client of held.splice(0)) client.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('SIGTERM (STYLE 14)', function () {
  this.timeout(120000);
  // A database and a queue prefix of its own: `npm start` migrates and may load demo data, and its
  // workers must not take the other tests' jobs.
  const db = new URL(process.env.DATABASE_URL!);
  db.pathname = `${db.pathname}_sigterm`;
  let proc: Spawned | undefined;

  after(async () => {
    if (proc && proc.child.exitCode === null) proc.child.kill('SIGKILL');
    await dropDatabase(db.toString());
  });

  it('npm start: stops taking requests, finishes the one in flight, drains every child and exits 0', async () => {
    const port = await freePort();
    proc = spawnEntry('dist/src/main/all.js', {
      PORT: String(port),
      DATABASE_URL: db.toString(),
      QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_sigterm`,
      LOG_LEVEL: 'info',
      // one API process: the in-flight request below must be in the process that answers the later one
      WEB_PROCESSES: '1',
      // as a first try-out runs it: no NODE_ENV, no secrets
      NODE_ENV: undefined,
      JWT_SECRET: undefined,
      INTEGRITY_SECRET: undefined,
    });
    const p = proc;
    await waitFor(
      async () => {
        if (p.child.exitCode !== null) throw new Error(`exited early: ${p.stderr()}`);
        const res = await got(`http://127.0.0.1:${port}/health`, { throwHttpErrors: false, retry: { limit: 0 } }).catch(() => null);
        return res?.statusCode === 200;
      },
      { timeoutMs: 90000, intervalMs: 100, what: 'GET /health 200' },
    );

    // A request in flight: its body arrives in two parts, the second after SIGTERM.
    const body = JSON.stringify({ username: 'nobody', password: 'wrong' });
    const conn = rawConnection(port);
    conn.socket.write(
      `POST /api/v3/users/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    // A later request answered means the server has accepted and parsed the earlier one's headers.
    const later = await got(`http://127.0.0.1:${port}/health`, { throwHttpErrors: false, retry: { limit: 0 } });
    expect(later.statusCode).to.equal(200);
    p.child.kill('SIGTERM');
    await waitFor(() => p.stdout().includes('"msg":"shutting down"'), { timeoutMs: 10000, what: 'the shutdown to start' });

    // New connections are refused (polled: the log line may reach us a moment before the listener closes).
    const refused = await waitFor(
      async () =>
        (await got(`http://127.0.0.1:${port}/health`, { retry: { limit: 0 }, timeout: { request: 5000 } }).then(
          () => null,
          (err: { code?: string }) => (err.code === 'ECONNREFUSED' ? err.code : null),
        )),
      { what: 'new connections to be refused' },
    );
    expect(refused).to.equal('ECONNREFUSED');

    conn.socket.write(body.slice(10));
    const res = parseResponse(await conn.received);
    expect(res.statusCode).to.equal(401);
    expect(res.headers.connection).to.equal('close');
    expect(JSON.parse(res.body)).to.deep.equal({ status: false, msg: LOGIN_MESSAGES.invalid });

    const { code } = await p.exited;
    expect(code).to.equal(0);
    // The supervisor forwarded SIGTERM; each child ran its own steps; all stopped with 0.
    const logs = logLines(p.stdout());
    const supervisor = p.child.pid;
    const started = logs.filter((l) => l.pid === supervisor && l.msg === 'child started');
    expect(started.map((l) => l.role)).to.have.members(['web', 'worker:time-critical', 'worker:background']);
    for (const { role, child } of started) {
      const steps = logs.filter((l) => l.pid === child && l.msg === 'shutdown step done').map((l) => l.step);
      expect(steps, `${String(role)} steps`).to.deep.equal(role === 'web' ? ['http', 'metrics', 'runtime'] : ['workers', 'metrics', 'runtime']);
    }
    const stopped = logs.filter((l) => l.pid === supervisor && l.msg === 'child stopped');
    expect(stopped.map((l) => [l.child, l.code])).to.have.deep.members(started.map((l) => [l.child, 0]));
    // (pino flushes its last lines synchronously at exit, so they may land before an earlier one)
    expect(logs.filter((l) => l.pid === supervisor && l.msg === 'bye').map((l) => l.code)).to.deep.equal([0]);
    // Public defaults said once, on stderr, by the supervisor (issue 8, item 12).
    const err = p.stderr();
    expect(err.split('NOT FOR PRODUCTION')).to.have.length(2);
    expect(err).to.include('NODE_ENV is development').and.include('JWT_SECRET is not set').and.include('INTEGRITY_SECRET is not set');
    expect(err).to.include('config/demo.json').and.include('NODE_ENV=production');
  });

  for (const [role, entry] of [
    ['api', 'dist/src/main/web.js'],
    ['worker', 'dist/workers/main.js'],
  ] as const) {
    it(`the ${role} process told to stop while still starting finishes starting, drains and exits 0`, async () => {
      const gate = await databaseGate();
      const port = await freePort();
      const p = spawnEntry(entry, { PORT: String(port), DATABASE_URL: gate.url, QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_early_${role}`, LOG_LEVEL: 'info' });
      try {
        // Still starting: its database connection is held at the gate.
        await Promise.race([gate.connected, p.exited.then(() => Promise.reject(new Error(`exited early: ${p.stderr()}`)))]);
        p.child.kill('SIGTERM');
        await waitFor(() => logLines(p.stdout()).some((l) => l.msg === 'stop requested while starting; draining once started'), { what: 'the held signal' });
        gate.open();
        const { code, signal } = await p.exited;
        expect({ code, signal }).to.deep.equal({ code: 0, signal: null });
        const lines = logLines(p.stdout()).map((l) => l.msg);
        const started = lines.indexOf(role === 'api' ? 'api listening' : 'workers running');
        expect(started, 'started').to.be.at.least(0);
        expect(lines.indexOf('shutting down'), 'drained once started').to.be.greaterThan(started);
        expect(lines).to.include('bye');
      } finally {
        if (p.child.exitCode === null) p.child.kill('SIGKILL');
        await gate.close();
      }
    });
  }

  it('the API and worker entries keep stop signals from their first import, before any other module loads', async () => {
    for (const entry of ['src/main/web.ts', 'workers/main.ts']) {
      const source = await readFile(join(ROOT, entry), 'utf8');
      const firstImport = source.split('\n').find((l) => l.startsWith('import '));
      expect(firstImport, entry).to.match(/^import \{ keptStopSignals \} from '[./a-z]*\/stopSignals\.js';$/);
    }
  });

  it('a process still starting when its shutdown deadline passes exits 1', async () => {
    const gate = await databaseGate();
    const p = spawnEntry('dist/workers/main.js', { DATABASE_URL: gate.url, SHUTDOWN_TIMEOUT_MS: '300', LOG_LEVEL: 'info' });
    try {
      await Promise.race([gate.connected, p.exited.then(() => Promise.reject(new Error(`exited early: ${p.stderr()}`)))]);
      p.child.kill('SIGTERM');
      const { code } = await p.exited;
      expect(code).to.equal(1);
      expect(logLines(p.stdout()).map((l) => l.msg)).to.include('still starting when told to stop, exiting');
    } finally {
      if (p.child.exitCode === null) p.child.kill('SIGKILL');
      await gate.close();
    }
  });

  it('lets a running job finish before the workers close', async () => {
    const events: string[] = [];
    let release: () => void = () => undefined;
    const app = await startApp({
      env: { QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_drain` },
      workers: {
        handlers: {
          ...handlers,
          'offer-distribution': {
            distribute: async (_rt, data) => {
              events.push(`started ${data.offerUuid}`);
              await new Promise<void>((resolve) => (release = resolve));
              events.push(`finished ${data.offerUuid}`);
            },
          },
        },
      },
    });
    try {
      await app.rt.queues.add('offer-distribution', 'distribute', { offerUuid: 'drain-1' }, { jobId: jobId('distribute', 'drain-1') });
      await waitFor(() => events.includes('started drain-1'), { what: 'the job to start' });
      const closed = app.workers!.close().then(() => events.push('workers closed'));
      await waitFor(() => app.workers!.workers.every((w) => w.closing), { what: 'the workers to stop taking jobs' });
      release();
      await closed;
      expect(events).to.deep.equal(['started drain-1', 'finished drain-1', 'workers closed']);
      const job = await app.rt.queues.get('offer-distribution').getJob(jobId('distribute', 'drain-1'));
      expect(await job?.getState()).to.equal('completed');
    } finally {
      await app.close();
    }
  });
});
