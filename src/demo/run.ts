/**
 * `npm run demo` (D23): the service as `npm start` runs it, a market of its
 * own provisioned into it (config/demo-market.json: every name says DEMO;
 * provisioning upserts, so a second run changes nothing and nothing is ever
 * deleted), then DEMO_MINUTES of play at DEMO_SPEED. The demo is an outside
 * client of the service: HTTP, WebSockets, the provisioning CLI and the SMS
 * outbox table, nothing imported from the service's code. When the market
 * has played, it prints its tally and leaves the service running for the
 * links it printed; Ctrl-C (SIGINT) finishes the demo's own open services,
 * stops the service and exits 0.
 */
import { randomInt } from 'node:crypto';
import { unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Customer, type PageCode } from './customer.js';
import { GeneratorApp } from './generator.js';
import { apiClient } from './http.js';
import { offerAt, readMarket } from './plan.js';
import { seeded } from './random.js';
import { startReceiver, type Receiver } from './receivers.js';
import { portFree, provisionDocument, startService, waitHealthy } from './service.js';
import { Tally } from './tally.js';
import { TechnicianApp } from './technician.js';

export interface DemoSettings {
  port: number;
  databaseUrl: string;
  /** the customer app's and the technician app's shared secret for chat and tracking (D13) */
  integritySecret: string;
  /** the service's response window (OFFER_RESPONSE_WINDOW_MS), for the lateness when no technician saw the deadline */
  windowMs: number;
  minutes: number;
  speed: number;
  seed: number;
  summaryMs: number;
  marketPath: string;
  logPath: string;
}

export async function runDemo(s: DemoSettings, print: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<number> {
  const tally = new Tally();
  const rnd = seeded(s.seed);
  const market = await readMarket(s.marketPath);
  const base = `http://127.0.0.1:${s.port}`;
  const shown = `http://localhost:${s.port}`;
  const wsUrl = `ws://127.0.0.1:${s.port}/v3`;
  const api = apiClient(base, s.integritySecret);

  let stopping = false;
  let wake: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (wake = resolve));
  const onSignal = () => {
    if (stopping) return;
    stopping = true;
    print('demo: stopping …');
    wake();
  };
  // SIGHUP too (the terminal closed): a signal's default death would skip stopping the service
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  for (const sig of signals) process.on(sig, onSignal);
  const sleep = (ms: number) => Promise.race([new Promise<void>((r) => setTimeout(r, ms)), stopped]);

  if (!(await portFree(s.port))) {
    print(`demo: port ${s.port} is in use (is \`npm start\` running?); stop it or run the demo with another PORT.`);
    return 1;
  }
  print(`demo: starting the service as npm start does (node dist/src/main/all.js) on port ${s.port}; its log: ${s.logPath}`);
  const service = startService(s.logPath, (line) => {
    tally.fail('serviceErrorLine', line.slice(0, 500));
    print(`service error: ${line.slice(0, 500)}`);
  });

  const receivers: Receiver[] = [];
  const technicians: TechnicianApp[] = [];
  const generators: GeneratorApp[] = [];
  let customer: Customer | undefined;
  let summary: NodeJS.Timeout | undefined;
  let finalPrinted = false;
  try {
    await Promise.race([waitHealthy(base, service, 180_000), stopped]);
    if (stopping) return await finish();

    // Receivers first, so the provisioned endpoints answer from the first notification on.
    const deadlines = new Map<string, number>();
    const byDni = new Map<string, TechnicianApp>();
    let page: PageCode | undefined;
    let followed = false;
    customer = new Customer({ api, wsUrl, databaseUrl: s.databaseUrl, tally, log: print });
    for (const g of market.generators) {
      const app: GeneratorApp = new GeneratorApp(g, {
        api,
        wsUrl,
        tally,
        rnd,
        speed: s.speed,
        windowMs: s.windowMs,
        deadlines,
        dispatch: (dni, uuid) => byDni.get(dni)?.dispatch(uuid),
        placaOf: (dni) => byDni.get(dni)?.player.placa,
        onAssigned: (a) => {
          if (followed || !a.telefono || stopping) return;
          followed = true;
          customer!
            .follow({ uuid: a.uuid, expediente: a.codigoServicio, telefono: a.telefono })
            .then((p) => {
              page = p;
              print(`demo: the customer of ${p.expediente} got the SMS code, opened the follow-up and wrote in the chat.`);
              print(`demo: customer page ${shown}/seguimiento: expediente ${p.expediente}, teléfono ${p.telefono}, código ${p.code} (valid 10 minutes)`);
            })
            .catch((err: Error) => {
              if (!stopping) tally.fail('apiFailure', `customer: ${err.message}`);
            });
        },
        log: print,
      });
      generators.push(app);
      receivers.push(
        await startReceiver(
          g.secret,
          (n) => app.onNotification(n),
          (why) => tally.fail('webhookRejected', why),
        ),
      );
    }

    // The market's document, pointing the generators' endpoints at these receivers; upserted by the CLI.
    const doc = structuredClone(market.document);
    market.generators.forEach((g, i) => {
      const user = doc.apiUsers.find((u) => u.username === g.username)!;
      user.urlApi = receivers[i].url;
    });
    const tmp = join(tmpdir(), `service-offer-demo-market-${process.pid}.json`);
    await writeFile(tmp, JSON.stringify(doc));
    try {
      const out = await provisionDocument(tmp);
      print(`demo: market provisioned (upsert, nothing deleted): ${out.split('\n').slice(1).map((l) => l.trim()).filter(Boolean).join('; ')}`);
    } finally {
      await unlink(tmp).catch(() => undefined);
    }
    if (stopping) return await finish();

    const line = String((market.document.businessLines as Array<{ code: string }> | undefined)?.[0]?.code ?? 'DEMO');
    const leftovers = (await Promise.all(generators.map((g) => g.finishLeftovers(line)))).reduce((a, b) => a + b, 0);
    if (leftovers) print(`demo: finalized ${leftovers} demo service(s) an earlier run left under way`);

    for (const t of market.technicians) {
      const app = new TechnicianApp(t, { api, wsUrl, tally, rnd, speed: s.speed, deadlines, log: print });
      technicians.push(app);
      byDni.set(t.dni, app);
    }
    await Promise.all(technicians.map((t) => t.start()));
    await Promise.all(generators.map((g) => g.start()));

    const phone = `300${String(randomInt(0, 10_000_000)).padStart(7, '0')}`;
    print('');
    print('  Service Offer Brokering API: the demo market is playing');
    print(`  Operator console  ${shown}/admin/console   (log in: ${market.operator.username} / ${market.operator.password})`);
    print(`  Customer page     ${shown}/seguimiento     (an expediente, phone and code are printed once a followed service is assigned)`);
    print(`  API docs          ${shown}/api/v3/docs`);
    print(`  Bull Board        ${shown}/admin/queues`);
    print(`  Market: ${market.centrals.length} centrals, ${market.technicians.length} technicians, ${market.generators.length} generators; ${s.minutes} min at speed ${s.speed}`);
    print('');

    const startedAt = Date.now();
    summary = setInterval(() => print(tally.line()), s.summaryMs);
    const endAt = Date.now() + s.minutes * 60_000;
    // an offer every ~12 s of demo time: with 30-second windows, two or three auctions are open at once
    const every = Math.max(250, 12_000 / s.speed);
    for (let n = 0; !stopping && Date.now() < endAt; n++) {
      const spec = offerAt(market, rnd, n);
      const app = generators[n % generators.length];
      const telefono = !followed && spec.kind !== 'uncovered' ? phone : undefined;
      void app.post(spec, telefono).catch((err: Error) => tally.fail('apiFailure', `POST /oferta: ${err.message}`));
      await sleep(every * rnd.between(0.6, 1.4));
    }

    // The market closes: no new offers; what is under way finishes.
    const drainUntil = Date.now() + Math.max(20_000, 120_000 / s.speed);
    while (!stopping && Date.now() < drainUntil) {
      const busy = generators.some((g) => g.active.size > 0) || tally.open.size > 0 || (followed && !page && tally.counts.apiFailure === 0);
      if (!busy) break;
      await sleep(200);
    }
    if (stopping) return await finish();
    clearInterval(summary);
    const deliveriesFailed = (await Promise.all(generators.map((g) => g.failedDeliveriesSince(startedAt)))).reduce((a, b) => a + b, 0);
    print(tally.line());
    print(tally.final({ phase: 'played', webhookStates: statesOf(generators), deliveriesFailed, customerPage: page ?? null }));
    finalPrinted = true;
    print('');
    print(`demo: the market has played. The service keeps running for the links above${page ? ` (customer page: expediente ${page.expediente}, teléfono ${page.telefono}, código ${page.code})` : ''}.`);
    print('demo: Ctrl-C stops it.');
    await stopped;
    return await finish();
  } catch (err) {
    print(`demo: failed: ${(err as Error).stack ?? err}`);
    await finish();
    return 1;
  } finally {
    for (const sig of signals) process.off(sig, onSignal);
  }

  /** Finishes the demo's own open services, closes every client, stops the service. */
  async function finish(): Promise<number> {
    stopping = true;
    clearInterval(summary);
    const open = generators.flatMap((g) => [...g.active].map((uuid) => g.finalize(uuid)));
    await Promise.race([Promise.allSettled(open), new Promise((r) => setTimeout(r, 5000))]);
    for (const t of technicians) t.stop();
    for (const g of generators) g.stop();
    await customer?.stop().catch(() => undefined);
    await Promise.all(receivers.map((r) => r.close()));
    if (!finalPrinted) print(tally.final({ phase: 'stopped', webhookStates: statesOf(generators) }));
    const code = await service.stop();
    print(`demo: the service stopped (exit ${code}); bye`);
    return code === 0 ? 0 : 1;
  }
}

function statesOf(generators: GeneratorApp[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const g of generators) for (const [k, v] of g.states) out[k] = (out[k] ?? 0) + v;
  return out;
}
