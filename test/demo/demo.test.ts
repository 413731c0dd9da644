/**
 * `npm run demo` end to end (D23, issue 31 item 1), shortened: its entry
 * (dist/src/cli/demo.js, what `npm run demo` runs after its build) plays a
 * market on the test database (which already holds other suites' data) for
 * a few seconds at a high speed. Every kind of event happens at least once,
 * every webhook verifies (standardwebhooks), the service logs no error,
 * SIGINT stops everything with exit 0, and a second run on the same database
 * works (the market's provisioning is an upsert: nothing created twice).
 */
import { expect } from 'chai';
import { readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/ports.js';
import { logLines, ROOT, spawnEntry, type Spawned } from '../helpers/spawn.js';

/** Resolves with the first match of `re` in the process's stdout, as output arrives; rejects when it exits first or in `timeoutMs`. */
function untilOutput(p: Spawned, re: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const m = re.exec(p.stdout());
      if (!m) return false;
      done();
      resolve(m);
      return true;
    };
    const onExit = () => {
      if (check()) return;
      done();
      reject(new Error(`the demo exited before ${re}:\n${p.stdout().slice(-3000)}\n${p.stderr().slice(-3000)}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`no ${re} within ${timeoutMs} ms:\n${p.stdout().slice(-3000)}\n${p.stderr().slice(-3000)}`));
    }, timeoutMs);
    const onData = () => void check();
    const done = () => {
      clearTimeout(timer);
      p.child.stdout.off('data', onData);
      p.child.off('exit', onExit);
    };
    // listeners after spawn's own collector, so the text is already appended when this runs
    p.child.stdout.on('data', onData);
    p.child.once('exit', onExit);
    check();
  });
}

type Tally = Record<string, number> & { webhookStates: Record<string, number>; failures: string[]; customerPage: { code: string } | null };

/** Every kind of event the market must show at least once. */
const KINDS = [
  'offerPosted',
  'offerScheduled',
  'offerByAddress',
  'offerUncovered',
  'stopAdded',
  'offerReceived',
  'response',
  'notAnswered',
  'responseSeenByGenerator',
  'selection',
  'acceptanceReceived',
  'assignment',
  'enCamino',
  'enSitio',
  'finalizada',
  'sinRespuesta',
  'expirada',
  'positionReported',
  'customerCode',
  'customerTracked',
  'chatSent',
  'chatReceived',
  'stateWebhookVerified',
];

describe('npm run demo (D23)', function () {
  this.timeout(150_000);
  const logs: string[] = [];
  const running: Spawned[] = [];

  after(async () => {
    for (const p of running) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    for (const log of logs) await rm(log, { force: true });
  });

  async function play(run: number): Promise<{ out: string; tally: Tally }> {
    const log = join(tmpdir(), `demo-test-${process.pid}-${run}.log`);
    logs.push(log);
    const port = await freePort();
    const p = spawnEntry('dist/src/cli/demo.js', {
      PORT: String(port),
      QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_demo`,
      LOG_LEVEL: 'info',
      WEB_PROCESSES: '1',
      // an unanswered offer expires within the run, so EXPIRADA shows too
      OFFER_MAX_OPEN_MS: '4000',
      DEMO_MINUTES: '0.4',
      DEMO_SPEED: '6',
      DEMO_SEED: String(31 + run),
      DEMO_SUMMARY_MS: '2000',
      DEMO_LOG: log,
    });
    running.push(p);
    const [, json] = await untilOutput(p, /^DEMO_TALLY (.*)$/m, 120_000);
    // the code printed for the customer page opens it, as a person would type it there
    const page = (JSON.parse(json) as Tally).customerPage as { expediente: string; code: string } | null;
    const opened = await fetch(`http://127.0.0.1:${port}/seguimiento/verificar`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: `http://127.0.0.1:${port}` },
      body: new URLSearchParams({ expediente: page?.expediente ?? '', code: page?.code ?? '' }).toString(),
    });
    expect(opened.status, 'the customer page with the printed code').to.equal(303);
    expect(opened.headers.get('set-cookie')).to.match(/httponly/i);
    p.child.kill('SIGINT');
    const { code } = await p.exited;
    const out = p.stdout();
    expect(code, `exit on SIGINT\n${out.slice(-3000)}\n${p.stderr()}`).to.equal(0);
    expect(out).to.match(/^\[demo \d+s\] offers \d+ \(open \d+\) · windows closed \d+ · p99 lateness .* · webhooks delivered \d+/m);
    expect(out).to.include('/admin/console').and.include('/seguimiento').and.include('/api/v3/docs').and.include('/admin/queues');
    expect(out).to.match(/demo: the service stopped \(exit 0\); bye/);
    // no error-level line from any of the service's processes, from start to stop
    const errors = logLines(await readFile(log, 'utf8')).filter((l) => Number(l.level) >= 50);
    expect(errors, JSON.stringify(errors, null, 1)).to.deep.equal([]);
    expect(out).not.to.include('service error:');
    return { out, tally: JSON.parse(json) as Tally };
  }

  function expectEveryKind(tally: Tally): void {
    const missing = KINDS.filter((k) => !(tally[k] >= 1));
    expect(missing, `kinds that never happened: ${JSON.stringify(tally)}`).to.deep.equal([]);
    expect(tally.webhookRejected, `webhooks that did not verify: ${tally.failures.join('\n')}`).to.equal(0);
    expect(tally.apiFailure, tally.failures.join('\n')).to.equal(0);
    expect(tally.serviceErrorLine).to.equal(0);
    expect(tally.deliveriesFailed, "failed deliveries in the delivery log (D18)").to.equal(0);
    expect(tally.webhookVerified).to.equal(tally.acceptanceReceived + tally.stateWebhookVerified);
    expect(Object.keys(tally.webhookStates)).to.include.members(['EN_CAMINO', 'EN_SITIO', 'FINALIZADA', 'SIN_RESPUESTA', 'EXPIRADA']);
    expect(tally.customerPage?.code).to.match(/^\d{6}$/);
  }

  it('is an outside client: nothing under src/demo imports the service code (only its own modules and packages)', async () => {
    const dir = join(ROOT, 'src/demo');
    const outside: string[] = [];
    for (const name of (await readdir(dir)).filter((n) => n.endsWith('.ts'))) {
      const text = await readFile(join(dir, name), 'utf8');
      for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) if (m[1].startsWith('.') && !m[1].startsWith('./')) outside.push(`${name}: ${m[1]}`);
    }
    expect(outside).to.deep.equal([]);
  });

  it('plays every kind of event, every webhook verified, no error logged, and stops with 0 on SIGINT', async () => {
    const { tally } = await play(1);
    expectEveryKind(tally);
  });

  it('plays again on the same database: the market is upserted (nothing created twice), and every kind happens again', async () => {
    const { out, tally } = await play(2);
    const provisioned = /^demo: market provisioned.*$/m.exec(out)?.[0] ?? '';
    expect(provisioned).to.match(/technicians\s+0\s+\d+\s+\d+/);
    expect(provisioned).to.match(/centrals\s+0\s+\d+\s+\d+/);
    expectEveryKind(tally);
  });
});
